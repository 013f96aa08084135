"""The match tracker: two players, one 10th-edition battle, one event log (see
docs/adr/0004-match-event-sourcing.md)."""
