"""Rolling scenario eval harness (docs/contracts.md EVAL-1..7, PROPERTY-1..3): suites, the
thought pipeline per scenario, metrics, properties, artifacts and run reports. It judges
keep-alive/LLM thoughts only, never drive ticks (DRIVE-5)."""
