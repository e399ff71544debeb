// The CSS path of child positions that finds an element again: the tree script writes it beside each element,
// and a css= selector's matches are answered as these paths, so they map onto the tree just read.
function visorPath(el) {
  var steps = [];
  for (var node = el; node && node.nodeType === 1 && node !== document.documentElement; node = node.parentElement) {
    var index = 1;
    for (var sibling = node.previousElementSibling; sibling; sibling = sibling.previousElementSibling) index++;
    steps.unshift(node.tagName.toLowerCase() + ":nth-child(" + index + ")");
  }
  return steps.length ? "html > " + steps.join(" > ") : "html";
}
