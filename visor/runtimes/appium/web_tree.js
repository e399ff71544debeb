// The page as visor's tree, read in one asynchronous script call once the page has settled: each rendered
// element with its box (CSS pixels of the viewport), texts, kind and state, and a CSS path that finds it again
// (`visorPath`, web_path.js's, sent before this script). Returned as JSON text, capped, with how long the page
// had been quiet, and where a touch lands at the points visor aims at first. Arguments: the most elements to read (what is past it is counted, not read), how long the
// page must have been quiet (ms), the longest to wait for that (ms), and WebDriver's callback.
//
// Settled is the page's own signals: the document loaded, no finite animation or transition running, and no
// change to the DOM and no scrolling for the quiet time. A MutationObserver, installed once per document,
// remembers when the page last changed, so a page quiet since the last read is read at once.
var limit = arguments[0], quietMs = arguments[1], settleMs = arguments[2], done = arguments[3];
var KEY = "__visor_last_change__";
if (!window[KEY]) {
  window[KEY] = { at: performance.now() };
  var changed = function () { window[KEY].at = performance.now(); };
  new MutationObserver(changed).observe(document, {
    subtree: true, childList: true, attributes: true, characterData: true
  });
  // A page, or an element in it, still scrolling (a fling, smooth scrolling) has not settled either.
  window.addEventListener("scroll", changed, { capture: true, passive: true });
}
function animating() {
  if (!document.getAnimations) return false;
  return document.getAnimations().some(function (animation) {
    var end = animation.effect && animation.effect.getComputedTiming().endTime;
    return animation.playState === "running" && isFinite(end);
  });
}
var started = performance.now();
(function wait() {
  var now = performance.now();
  var quiet = now - window[KEY].at >= quietMs && document.readyState === "complete" && !animating();
  if (quiet || now - started >= settleMs) {
    // A page that broke what the walk relies on (a patched DOM method) answers why, not a script timeout.
    try {
      done(read(limit, quiet, Math.round(now - started), Math.round(now - window[KEY].at)));
    } catch (error) {
      done(JSON.stringify({ error: String((error && error.stack) || error).slice(0, 2000) }));
    }
  } else {
    setTimeout(wait, 20);
  }
})();

function read(limit, settled, waited, quietFor) {
  "use strict";
  var SKIP = { SCRIPT: 1, STYLE: 1, HEAD: 1, META: 1, LINK: 1, NOSCRIPT: 1, TEMPLATE: 1, TITLE: 1, BASE: 1 };
  var TEXT_INPUTS = { text: 1, search: 1, email: 1, url: 1, tel: 1, password: 1, number: 1, date: 1,
    "datetime-local": 1, month: 1, time: 1, week: 1, "": 1 };
  var NAMED_BY_CONTENT = { BUTTON: 1, A: 1, LABEL: 1, SUMMARY: 1, OPTION: 1, LEGEND: 1, CAPTION: 1, TH: 1,
    H1: 1, H2: 1, H3: 1, H4: 1, H5: 1, H6: 1 };
  var ROLES = { button: "android.widget.Button", link: "android.view.View", checkbox: "android.widget.CheckBox",
    radio: "android.widget.RadioButton", "switch": "android.widget.Switch", slider: "android.widget.SeekBar",
    textbox: "android.widget.EditText", searchbox: "android.widget.EditText", combobox: "android.widget.Spinner",
    img: "android.widget.Image", list: "android.widget.ListView", progressbar: "android.widget.ProgressBar",
    tab: "android.widget.Button", menuitem: "android.widget.Button", heading: "android.widget.TextView",
    dialog: "android.app.Dialog", alertdialog: "android.app.Dialog" };
  var CLICKABLE_ROLES = { button: 1, link: 1, checkbox: 1, radio: 1, "switch": 1, tab: 1, menuitem: 1,
    option: 1, combobox: 1 };
  var count = 0;
  var active = document.activeElement;
  // The elements read, in page order (a node's index in visor's tree), and their nodes.
  var order = [], nodes = [];

  function squash(text) { return (text || "").replace(/\s+/g, " ").trim(); }

  function ownText(el) {
    var parts = [];
    for (var child = el.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === 3) parts.push(child.nodeValue);
    }
    return squash(parts.join(" "));
  }

  function kind(el, role) {
    var tag = el.tagName;
    if (ROLES[role]) return ROLES[role];
    if (tag === "INPUT") {
      var type = (el.getAttribute("type") || "").toLowerCase();
      if (type === "checkbox") return "android.widget.CheckBox";
      if (type === "radio") return "android.widget.RadioButton";
      if (type === "range") return "android.widget.SeekBar";
      if (type === "button" || type === "submit" || type === "reset" || type === "image") {
        return "android.widget.Button";
      }
      return TEXT_INPUTS[type] ? "android.widget.EditText" : "android.view.View";
    }
    if (tag === "TEXTAREA" || el.isContentEditable) return "android.widget.EditText";
    if (tag === "BUTTON") return "android.widget.Button";
    if (tag === "SELECT") return "android.widget.Spinner";
    if (tag === "IMG" || tag === "SVG" || tag === "svg" || tag === "CANVAS" || tag === "PICTURE") {
      return "android.widget.Image";
    }
    if (tag === "UL" || tag === "OL") return "android.widget.ListView";
    if (tag === "PROGRESS") return "android.widget.ProgressBar";
    if (tag === "DIALOG") return "android.app.Dialog";
    return ownText(el) ? "android.widget.TextView" : "android.view.View";
  }

  function labelOf(el) {
    var named = el.getAttribute("aria-label");
    if (named) return squash(named);
    var by = el.getAttribute("aria-labelledby");
    if (by) {
      var texts = by.split(/\s+/).map(function (id) {
        var found = document.getElementById(id);
        return found ? squash(found.textContent) : "";
      });
      if (squash(texts.join(" "))) return squash(texts.join(" "));
    }
    if (el.labels && el.labels.length) return squash(el.labels[0].textContent);
    return squash(el.getAttribute("alt") || el.getAttribute("title") || "");
  }

  function scrolls(el, style) {
    var overflow = style.overflowY + " " + style.overflowX;
    var page = el === document.scrollingElement;
    var inner = /(auto|scroll)/.test(overflow);
    return (page || inner) && (el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1);
  }

  // The part of a box inside `clip` (what an ancestor that clips its overflow lets show), or null if none.
  function within(box, clip) {
    if (!clip) return [box.left, box.top, box.right, box.bottom];
    var left = Math.max(box.left, clip[0]), top = Math.max(box.top, clip[1]);
    var right = Math.min(box.right, clip[2]), bottom = Math.min(box.bottom, clip[3]);
    return right > left && bottom > top ? [left, top, right, bottom] : null;
  }

  // An element's box is what of it shows (as UiAutomator2 gives an element's visible bounds): cut by every
  // ancestor that clips its overflow. One cut away entirely keeps its own box but is not displayed, nor is one
  // inside a transparent ancestor (`faded`: opacity is not inherited, but it hides the children).
  function walk(el, clip, faded) {
    if (SKIP[el.tagName] || count >= limit) return null;
    var style = getComputedStyle(el);
    if (style.display === "none") return null;
    count++;
    if (style.position === "fixed") clip = null;  // placed on the viewport: no ancestor clips it
    var whole = el.getBoundingClientRect();
    var shown = within(whole, clip);
    var box = shown ? { left: shown[0], top: shown[1], right: shown[2], bottom: shown[3],
      width: shown[2] - shown[0], height: shown[3] - shown[1] } : whole;
    var role = (el.getAttribute("role") || "").toLowerCase();
    var tag = el.tagName;
    var type = tag === "INPUT" ? (el.getAttribute("type") || "").toLowerCase() : "";
    var field = (tag === "INPUT" && TEXT_INPUTS[type]) || tag === "TEXTAREA";
    var check = type === "checkbox" || type === "radio" || role === "checkbox" || role === "radio" ||
      role === "switch";
    var text = field ? el.value : NAMED_BY_CONTENT[tag] || role === "button" || role === "link" ?
      squash(el.innerText || el.textContent) : ownText(el);
    if (tag === "SELECT" && el.selectedIndex >= 0) text = squash(el.options[el.selectedIndex].text);
    if (tag === "INPUT" && (type === "button" || type === "submit" || type === "reset")) text = el.value;
    var disabled = el.disabled === true || el.getAttribute("aria-disabled") === "true";
    var clickable = !disabled && (tag === "A" && el.hasAttribute("href") || tag === "BUTTON" || tag === "SELECT" ||
      tag === "SUMMARY" || tag === "INPUT" || tag === "TEXTAREA" || CLICKABLE_ROLES[role] === 1 ||
      el.hasAttribute("onclick") || style.cursor === "pointer" && !(el.parentElement &&
      getComputedStyle(el.parentElement).cursor === "pointer"));
    var node = {
      c: kind(el, role),
      b: [Math.round(box.left), Math.round(box.top), Math.round(box.right), Math.round(box.bottom)],
      id: el.getAttribute("data-testid") || el.id || "",
      t: text || "",
      d: labelOf(el),
      h: squash(el.getAttribute("placeholder") || ""),
      k: check,
      on: check && (el.checked === true || el.getAttribute("aria-checked") === "true"),
      cl: clickable,
      en: !disabled,
      fo: field || clickable || el.tabIndex >= 0,
      f: el === active && el !== document.body,
      pw: type === "password",
      s: scrolls(el, style),
      se: el.selected === true || el.getAttribute("aria-selected") === "true",
      v: shown !== null && !faded && style.visibility !== "hidden" && style.opacity !== "0" && box.width > 0 &&
        box.height > 0,
      p: visorPath(el),
      kids: []
    };
    order.push(el);
    nodes.push(node);
    if (type === "range") node.r = [Number(el.min || 0), Number(el.max || 100), Number(el.value)];
    if (field && typeof el.selectionStart === "number" && el.selectionStart !== el.selectionEnd) {
      node.sel = [el.selectionStart, el.selectionEnd];
    }
    var clips = style.overflowX !== "visible" || style.overflowY !== "visible";
    var inner = clips ? within(whole, clip) || [0, 0, 0, 0] : clip;
    for (var child = el.firstElementChild; child; child = child.nextElementSibling) {
      var kid = walk(child, inner, faded || style.opacity === "0");
      if (kid) node.kids.push(kid);
    }
    return node;
  }

  var root = walk(document.documentElement, null, false);
  var total = document.getElementsByTagName("*").length;

  // Where a touch lands, by the browser's own hit test (what it paints topmost at a point, z-index and all),
  // at the points visor aims at first: each shown element's centre, and the centre of its part on the screen
  // (as visor computes them from the rounded boxes). Answered as the path of the element read there, null
  // for the page itself (nothing on it); at most MAX_HITS points (others are asked as they are needed).
  var MAX_HITS = 4000, hits = {}, asked = 0, width = window.innerWidth, height = window.innerHeight;
  var index = new Map();
  order.forEach(function (el, i) { index.set(el, i); });
  function ask(x, y) {
    var key = x + "," + y;
    if (x < 0 || y < 0 || x >= width || y >= height || key in hits || asked >= MAX_HITS) return;
    asked++;
    var el = document.elementFromPoint(x, y);
    while (el && !index.has(el)) el = el.parentElement;
    hits[key] = el && el !== document.documentElement && el !== document.body ? nodes[index.get(el)].p : null;
  }
  nodes.forEach(function (node) {
    if (!node.v) return;
    var b = node.b;
    var left = Math.max(b[0], 0), top = Math.max(b[1], 0), right = Math.min(b[2], width);
    var bottom = Math.min(b[3], height);
    if (right > left && bottom > top) ask(Math.floor((left + right) / 2), Math.floor((top + bottom) / 2));
    ask(Math.floor((b[0] + b[2]) / 2), Math.floor((b[1] + b[3]) / 2));
  });
  return JSON.stringify({
    width: window.innerWidth, height: window.innerHeight, ratio: window.devicePixelRatio,
    url: location.href, title: document.title, ready: document.readyState, settled: settled, waited: waited,
    quiet: settled ? quietFor : 0,
    root: root, read: count, total: total, hits: hits
  });
}
