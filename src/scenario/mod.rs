//! Scenarios: documents that replay a session (`scenario run`), made by hand or exported from a
//! session's journal (`session export`).

pub mod document;
pub mod export;
pub mod run;

pub use document::Document;
