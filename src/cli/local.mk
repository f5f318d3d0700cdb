# cli layer: filled in by its owner
