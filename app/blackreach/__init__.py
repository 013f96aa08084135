"""Heroes of Black Reach content: a user's own counters, tiles, boards and scenarios."""
