# store layer: filled in by its owner
