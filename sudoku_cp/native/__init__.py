"""Native algorithms: exact cover by Algorithm X."""
