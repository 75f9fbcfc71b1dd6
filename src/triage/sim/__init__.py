"""Running many games: the benchmark now, the simulator next."""
