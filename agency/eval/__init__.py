"""Rolling scenario eval harness (keep-alive spec section C, D): suites, the thought
pipeline per scenario, metrics, properties, artifacts and run reports. It judges
keep-alive/LLM thoughts only, never drive ticks (specs README point 1)."""
