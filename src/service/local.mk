# service layer: filled in by its owner
