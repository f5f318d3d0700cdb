# http layer: filled in by its owner
