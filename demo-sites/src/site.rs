//! The four demo sites and what each one demonstrates.

use std::fmt;

/// One of the four demo sites. Each is served on its own loopback origin, distinct by host and by port.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Site {
    /// The pizza shop: the host page that exposes its tools to the widget and consumes `pay_invoice` from pay.
    Shop,
    /// The chat widget, an iframe of another origin embedded by the shop, which lists and calls the shop's tools.
    Widget,
    /// The payment provider, an iframe embedded by the shop, which exposes `pay_invoice` to the shop only.
    Pay,
    /// The attacker, which embeds shop and pay and tries every way in.
    Evil,
}

impl Site {
    /// All sites, in the order of their default ports.
    pub const ALL: [Site; 4] = [Site::Shop, Site::Widget, Site::Pay, Site::Evil];

    /// The short name used in paths (`static/<name>/`), JSON keys and the `/config.js` endpoint.
    pub fn name(self) -> &'static str {
        match self {
            Site::Shop => "shop",
            Site::Widget => "widget",
            Site::Pay => "pay",
            Site::Evil => "evil",
        }
    }

    /// The loopback host this site is served on. Hosts differ so that every pair of sites is cross-site,
    /// not only cross-origin (storage partitioning and `SameSite` rules then apply as on the real web).
    pub fn host(self) -> &'static str {
        match self {
            Site::Shop => "127.0.0.1",
            Site::Widget => "localhost",
            Site::Pay => "127.0.0.2",
            Site::Evil => "127.0.0.3",
        }
    }

    /// The port used when none is configured.
    pub fn default_port(self) -> u16 {
        match self {
            Site::Shop => 8401,
            Site::Widget => 8402,
            Site::Pay => 8403,
            Site::Evil => 8404,
        }
    }

    /// One sentence for people: what opening this origin shows.
    pub fn demonstrates(self) -> &'static str {
        match self {
            Site::Shop => {
                "a pizza shop exposing search_products, add_to_cart, get_cart and checkout to the widget \
                 origin only, and paying through the pay iframe"
            }
            Site::Widget => {
                "the chat widget (open the shop to see it embedded): lists the shop's tools and calls them, \
                 with a transcript of running, completed, failed, stopped and interrupted calls"
            }
            Site::Pay => "a payment provider exposing pay_invoice to the shop origin only",
            Site::Evil => {
                "an attacker embedding shop and pay that tries every way in and shows that nothing got through"
            }
        }
    }

    /// Parses a site's short name (`shop`, `widget`, `pay`, `evil`).
    pub fn from_name(name: &str) -> Option<Site> {
        Site::ALL.into_iter().find(|site| site.name() == name)
    }
}

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
