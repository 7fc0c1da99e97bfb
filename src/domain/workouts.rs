//! TODO: filled by a later change.
