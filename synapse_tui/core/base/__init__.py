"""What every layer speaks: errors, the clock, config, limits, text safety, JSON Lines, provenance keys."""
