// Where a touch at a point lands, by the browser's own hit test: the CSS path of the element it paints topmost
// there (null: none). Arguments: x and y, CSS pixels of the viewport.
var el = document.elementFromPoint(arguments[0], arguments[1]);
return el ? visorPath(el) : null;
