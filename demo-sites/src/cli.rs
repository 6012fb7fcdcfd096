//! Command-line arguments of `interpane-demo`.

use std::path::PathBuf;

use crate::config::SitePorts;

/// Usage text printed by `--help`.
pub const USAGE: &str = "\
interpane-demo: serve the interpane demo on four loopback origins

Usage: interpane-demo [--ports SHOP,WIDGET,PAY,EVIL] [--pkg DIR] [--static DIR] [--test-mode]
                   [--check] [--screenshot PATH]

  --ports LIST       four ports for shop, widget, pay and evil (default 8401,8402,8403,8404; 0 = any free)
  --pkg DIR          the built bridge package served at /pkg/ (default: bridge/pkg of this checkout)
  --static DIR       the demo pages (default: demo-sites/static of this checkout)
  --test-mode        inject the postMessage spy into every page
  --check            (moved: run scripts/demo.sh --check, which drives headless Chromium)
  --screenshot PATH  (moved: run scripts/demo.sh --screenshot PATH)
  -h, --help         print this help
";

/// Parsed arguments.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CliArgs {
    /// Ports of the four sites.
    pub ports: SitePorts,
    /// `--pkg`: the bridge package folder, when given.
    pub pkg_dir: Option<PathBuf>,
    /// `--static`: the pages folder, when given.
    pub static_dir: Option<PathBuf>,
    /// `--test-mode`.
    pub test_mode: bool,
    /// `--check`.
    pub check: bool,
    /// `--screenshot`.
    pub screenshot: Option<PathBuf>,
    /// `--help` or `-h`.
    pub help: bool,
}

/// Why the arguments could not be understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CliError {
    /// An argument that is not one of the options.
    #[error("unknown argument {0:?}: see --help")]
    Unknown(String),
    /// An option that needs a value came last.
    #[error("{0} needs a value: see --help")]
    MissingValue(&'static str),
    /// `--ports` did not hold four ports.
    #[error("--ports wants four ports separated by commas (shop,widget,pay,evil), like 8401,8402,8403,8404; got {0:?}")]
    BadPorts(String),
    /// `--screenshot` without `--check`.
    #[error("--screenshot is taken during --check: add --check")]
    ScreenshotWithoutCheck,
}

impl CliArgs {
    /// Parses the arguments after the program name.
    pub fn parse<I, S>(args: I) -> Result<CliArgs, CliError>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut parsed = CliArgs::default();
        let mut args = args.into_iter().map(Into::into);
        while let Some(arg) = args.next() {
            let (flag, inline) = match arg.split_once('=') {
                Some((flag, value)) if flag.starts_with("--") => (flag.to_owned(), Some(value.to_owned())),
                _ => (arg.clone(), None),
            };
            let mut value =
                |name: &'static str| inline.clone().or_else(|| args.next()).ok_or(CliError::MissingValue(name));
            match flag.as_str() {
                "--ports" => parsed.ports = parse_ports(&value("--ports")?)?,
                "--pkg" => parsed.pkg_dir = Some(PathBuf::from(value("--pkg")?)),
                "--static" => parsed.static_dir = Some(PathBuf::from(value("--static")?)),
                "--screenshot" => parsed.screenshot = Some(PathBuf::from(value("--screenshot")?)),
                "--test-mode" if inline.is_none() => parsed.test_mode = true,
                "--check" if inline.is_none() => parsed.check = true,
                "-h" | "--help" if inline.is_none() => parsed.help = true,
                _ => return Err(CliError::Unknown(arg)),
            }
        }
        if parsed.screenshot.is_some() && !parsed.check {
            return Err(CliError::ScreenshotWithoutCheck);
        }
        Ok(parsed)
    }
}

fn parse_ports(list: &str) -> Result<SitePorts, CliError> {
    let bad = || CliError::BadPorts(list.to_owned());
    let ports: Vec<u16> =
        list.split(',').map(|part| part.trim().parse().map_err(|_| bad())).collect::<Result<_, _>>()?;
    match ports[..] {
        [shop, widget, pay, evil] => Ok(SitePorts { shop, widget, pay, evil }),
        _ => Err(bad()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ports(shop: u16, widget: u16, pay: u16, evil: u16) -> SitePorts {
        SitePorts { shop, widget, pay, evil }
    }

    #[test]
    fn arguments_parse_to_exact_values() {
        let cases: Vec<(&[&str], CliArgs)> = vec![
            (&[], CliArgs::default()),
            (&["--ports", "1,2,3,4"], CliArgs { ports: ports(1, 2, 3, 4), ..CliArgs::default() }),
            (&["--ports=0,0,0,0"], CliArgs { ports: SitePorts::ANY_FREE, ..CliArgs::default() }),
            (
                &["--ports", " 9001, 9002 ,9003,9004"],
                CliArgs { ports: ports(9001, 9002, 9003, 9004), ..CliArgs::default() },
            ),
            (&["--pkg", "out/pkg"], CliArgs { pkg_dir: Some("out/pkg".into()), ..CliArgs::default() }),
            (&["--static=s"], CliArgs { static_dir: Some("s".into()), ..CliArgs::default() }),
            (
                &["--check", "--screenshot", "docs/demo.png"],
                CliArgs { check: true, screenshot: Some("docs/demo.png".into()), ..CliArgs::default() },
            ),
            (&["--test-mode"], CliArgs { test_mode: true, ..CliArgs::default() }),
            (&["-h"], CliArgs { help: true, ..CliArgs::default() }),
        ];
        for (args, expected) in cases {
            assert_eq!(CliArgs::parse(args.iter().copied()), Ok(expected), "args {args:?}");
        }
    }

    #[test]
    fn bad_arguments_are_refused_with_the_reason() {
        let cases: Vec<(&[&str], CliError)> = vec![
            (&["--port", "1"], CliError::Unknown("--port".into())),
            (&["serve"], CliError::Unknown("serve".into())),
            (&["--check=yes"], CliError::Unknown("--check=yes".into())),
            (&["--pkg"], CliError::MissingValue("--pkg")),
            (&["--ports", "1,2,3"], CliError::BadPorts("1,2,3".into())),
            (&["--ports", "1,2,3,4,5"], CliError::BadPorts("1,2,3,4,5".into())),
            (&["--ports", "1,2,3,65536"], CliError::BadPorts("1,2,3,65536".into())),
            (&["--ports", "a,b,c,d"], CliError::BadPorts("a,b,c,d".into())),
            (&["--screenshot", "x.png"], CliError::ScreenshotWithoutCheck),
        ];
        for (args, expected) in cases {
            assert_eq!(CliArgs::parse(args.iter().copied()), Err(expected), "args {args:?}");
        }
    }
}
