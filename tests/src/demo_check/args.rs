//! Command-line arguments of `demo-check`.

use std::path::PathBuf;

/// Printed by `--help`.
pub const USAGE: &str = "\
demo-check: drive a browser through the interpane demo and print a table of checks

Usage: demo-check [--screenshot PATH]
       (usually through scripts/demo.sh --check [--engine chromium|firefox|webkit] [--screenshot PATH])

  --screenshot PATH  also save a PNG of the shop page, with the widget's conversation and chips, to PATH
  -h, --help         print this help

The demo server runs in-process on free loopback ports, with the postMessage spy on. Environment:
  E2E_ENGINE    chromium (default), firefox or webkit (WebKitGTK's MiniBrowser: needs a display, e.g. xvfb-run)
  CHROMEDRIVER, CHROMIUM, GECKODRIVER, FIREFOX, WEBKIT_WEBDRIVER, MINIBROWSER
                the WebDriver servers and browsers (default: Debian's paths; geckodriver from ~/.cargo/bin)
  E2E_PKG_DIR   the bridge package folder to serve (default bridge/pkg, built by scripts/build-pkg.sh)
  E2E_NATIVE    1: Chromium with native WebMCP (--enable-features=WebMCP; scripts/demo.sh --check --native)

Exit status: 0 when every check passed, 1 when one failed, 2 when the run could not start.
";

/// Parsed arguments.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Args {
    /// Where to save the screenshot, when asked.
    pub screenshot: Option<PathBuf>,
    /// `--help` or `-h`.
    pub help: bool,
}

/// Why the arguments could not be understood.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ArgsError {
    /// An argument that is not an option of demo-check.
    #[error("unknown argument {0:?}: see --help")]
    Unknown(String),
    /// `--screenshot` came last, without its file.
    #[error("--screenshot needs the PNG file to write, e.g. --screenshot docs/demo.png")]
    MissingScreenshotPath,
}

impl Args {
    /// Parses the arguments after the program name.
    pub fn parse<I, S>(args: I) -> Result<Args, ArgsError>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut parsed = Args::default();
        let mut args = args.into_iter().map(Into::into);
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--screenshot" => {
                    let path = args.next().filter(|path| !path.is_empty()).ok_or(ArgsError::MissingScreenshotPath)?;
                    parsed.screenshot = Some(PathBuf::from(path));
                }
                "-h" | "--help" => parsed.help = true,
                _ => match arg.strip_prefix("--screenshot=") {
                    Some("") => return Err(ArgsError::MissingScreenshotPath),
                    Some(path) => parsed.screenshot = Some(PathBuf::from(path)),
                    None => return Err(ArgsError::Unknown(arg)),
                },
            }
        }
        Ok(parsed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_parse_to_exact_values() {
        let cases: Vec<(&[&str], Result<Args, ArgsError>)> = vec![
            (&[], Ok(Args::default())),
            (&["--screenshot", "docs/demo.png"], Ok(Args { screenshot: Some("docs/demo.png".into()), help: false })),
            (&["--screenshot=out.png"], Ok(Args { screenshot: Some("out.png".into()), help: false })),
            (&["-h"], Ok(Args { screenshot: None, help: true })),
            (&["--help"], Ok(Args { screenshot: None, help: true })),
            (&["--screenshot"], Err(ArgsError::MissingScreenshotPath)),
            (&["--screenshot", ""], Err(ArgsError::MissingScreenshotPath)),
            (&["--screenshot="], Err(ArgsError::MissingScreenshotPath)),
            (&["--check"], Err(ArgsError::Unknown("--check".into()))),
            (&["demo.png"], Err(ArgsError::Unknown("demo.png".into()))),
        ];
        for (args, expected) in cases {
            assert_eq!(Args::parse(args.iter().copied()), expected, "args {args:?}");
        }
    }
}
