"""Army lists: building, validating, exporting and sharing them."""
