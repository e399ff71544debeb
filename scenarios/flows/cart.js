// A helper of scenarios/maestro-flows.yaml: remembers which item the flow opens and what its cart should show.
output.item = Number(ITEM);
output.expected = "In cart: " + (output.added || 0);
output.item;
