//! The origin each site ended up on, once its port is known.

use std::collections::BTreeMap;

use crate::site::Site;

/// The serialized origin (`http://host:port`) of every site of one running demo.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origins {
    by_site: [String; 4],
}

impl Origins {
    /// Origins from the port each site listens on.
    pub fn from_ports(port_of: impl Fn(Site) -> u16) -> Self {
        Origins { by_site: Site::ALL.map(|site| format!("http://{}:{}", site.host(), port_of(site))) }
    }

    /// The origin of `site`, e.g. `http://127.0.0.1:8401`.
    pub fn get(&self, site: Site) -> &str {
        &self.by_site[index_of(site)]
    }

    /// The `host:port` a request to `site` carries in its `Host` header.
    pub fn authority(&self, site: Site) -> &str {
        self.get(site).trim_start_matches("http://")
    }

    /// Origins by site name, for the `/config.js` endpoint.
    pub fn by_name(&self) -> BTreeMap<&'static str, &str> {
        Site::ALL.into_iter().map(|site| (site.name(), self.get(site))).collect()
    }
}

fn index_of(site: Site) -> usize {
    match site {
        Site::Shop => 0,
        Site::Widget => 1,
        Site::Pay => 2,
        Site::Evil => 3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_pair_each_site_with_its_host_and_port() {
        let origins = Origins::from_ports(|site| site.default_port());
        let expected = [
            (Site::Shop, "http://127.0.0.1:8401", "127.0.0.1:8401"),
            (Site::Widget, "http://localhost:8402", "localhost:8402"),
            (Site::Pay, "http://127.0.0.2:8403", "127.0.0.2:8403"),
            (Site::Evil, "http://127.0.0.3:8404", "127.0.0.3:8404"),
        ];
        for (site, origin, authority) in expected {
            assert_eq!(origins.get(site), origin);
            assert_eq!(origins.authority(site), authority);
        }
    }
}
