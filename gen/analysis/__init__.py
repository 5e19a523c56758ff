"""Analysis: result sets and traces -> pandas tables and facts (numbers only, no torch)."""
