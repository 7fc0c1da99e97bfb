//! TODO: filled by the foundation change.
