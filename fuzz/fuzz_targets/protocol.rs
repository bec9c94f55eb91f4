//! One host request line → `host::protocol::Request` (`console2svg::fuzzing::protocol`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| console2svg::fuzzing::protocol(data));
