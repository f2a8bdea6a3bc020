"""The staged graph runtime: tensors, ops, graphs, their optimiser and compiler,
and the operators converted code calls. It never imports `autograph`."""
