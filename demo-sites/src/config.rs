//! What the demo server serves and where.

use std::path::{Path, PathBuf};

use crate::error::DemoError;
use crate::site::Site;

/// The port of each site. Port 0 asks the operating system for a free port (the end-to-end suite does that).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SitePorts {
    /// Port of the shop, served on `127.0.0.1`.
    pub shop: u16,
    /// Port of the widget, served on `localhost`.
    pub widget: u16,
    /// Port of the payment provider, served on `127.0.0.2`.
    pub pay: u16,
    /// Port of the attacker, served on `127.0.0.3`.
    pub evil: u16,
}

impl SitePorts {
    /// Every site on a free port picked by the operating system.
    pub const ANY_FREE: SitePorts = SitePorts { shop: 0, widget: 0, pay: 0, evil: 0 };

    /// The configured port of `site`.
    pub fn get(&self, site: Site) -> u16 {
        match site {
            Site::Shop => self.shop,
            Site::Widget => self.widget,
            Site::Pay => self.pay,
            Site::Evil => self.evil,
        }
    }

    /// Refuses two sites on the same fixed port: the origins must differ by port as well as by host.
    pub fn check_distinct(&self) -> Result<(), DemoError> {
        for (index, first) in Site::ALL.iter().enumerate() {
            for second in &Site::ALL[index + 1..] {
                let port = self.get(*first);
                if port != 0 && port == self.get(*second) {
                    return Err(DemoError::DuplicatePort { port, first: *first, second: *second });
                }
            }
        }
        Ok(())
    }
}

impl Default for SitePorts {
    /// 8401 (shop), 8402 (widget), 8403 (pay), 8404 (evil).
    fn default() -> Self {
        SitePorts {
            shop: Site::Shop.default_port(),
            widget: Site::Widget.default_port(),
            pay: Site::Pay.default_port(),
            evil: Site::Evil.default_port(),
        }
    }
}

/// Configuration of [`DemoServer::start`](crate::DemoServer::start).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DemoConfig {
    /// Port of each site.
    pub ports: SitePorts,
    /// Folder holding `common/` and one folder per site (`shop/`, `widget/`, `pay/`, `evil/`).
    pub static_dir: PathBuf,
    /// Folder of the built bridge package, served at `/pkg/` on every origin.
    pub pkg_dir: PathBuf,
    /// Test mode: every HTML page gets, as its first script, a spy that records the target origin of every
    /// `postMessage` call into `window.__postMessageLog`, and `/config.js` reports `testMode: true`.
    pub test_mode: bool,
}

impl DemoConfig {
    /// The default configuration with every site on a free port and test mode on: what the end-to-end suite uses.
    pub fn for_tests() -> Self {
        DemoConfig { ports: SitePorts::ANY_FREE, test_mode: true, ..DemoConfig::default() }
    }
}

impl Default for DemoConfig {
    /// Default ports, the static folder of this crate, `bridge/pkg` of the workspace, test mode off.
    fn default() -> Self {
        DemoConfig {
            ports: SitePorts::default(),
            static_dir: default_static_dir(),
            pkg_dir: default_pkg_dir(),
            test_mode: false,
        }
    }
}

/// `demo-sites/static` of this checkout.
pub fn default_static_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("static")
}

/// `bridge/pkg` of this checkout's workspace, where `scripts/build-pkg.sh` writes the bridge package.
pub fn default_pkg_dir() -> PathBuf {
    workspace_root().join("bridge").join("pkg")
}

/// The workspace root: the parent of this crate's folder.
pub fn workspace_root() -> PathBuf {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir.parent().unwrap_or(manifest_dir).to_path_buf()
}
