//! Scenario documents (YAML, JSON), config files, theme and frame files through their real
//! loaders (`console2svg::fuzzing::documents`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| console2svg::fuzzing::documents(data));
