//! `wasm-bindgen-test-runner`, unchanged: the binary wasm-bindgen-cli ships, linked against a tiny_http whose worker
//! pool no longer leaves a new connection unserved (README.md in this directory).

fn main() -> anyhow::Result<()> {
    env_logger::init();
    wasm_bindgen_cli::wasm_bindgen_test_runner::run_cli_with_args(std::env::args_os())
}
