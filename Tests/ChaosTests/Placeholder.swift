// Replaced by the chaos tests.
