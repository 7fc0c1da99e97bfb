//! Command-line parsing (filled by the foundation change).
