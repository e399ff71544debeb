// The elements a css= selector matches, by the browser's own engine (querySelectorAll), in document order: how
// many, and the CSS paths of the first ones (arguments: the selector, the most paths to answer). A selector the
// browser refuses answers its error instead.
var found;
try {
  found = document.querySelectorAll(arguments[0]);
} catch (error) {
  return { error: String((error && error.message) || error) };
}
var paths = [];
for (var i = 0; i < found.length && i < arguments[1]; i++) paths.push(visorPath(found[i]));
return { count: found.length, paths: paths };
