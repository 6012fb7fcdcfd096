//! Starting and stopping the four origins.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::serve::ListenerExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::config::DemoConfig;
use crate::counters::{Counters, SiteCounters};
use crate::error::DemoError;
use crate::gates::Gates;
use crate::origins::Origins;
use crate::routes::{SiteState, site_router};
use crate::site::Site;

/// How long [`RunningDemo::shutdown`] lets open requests finish before it drops them.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);

/// Starts the demo: see [`DemoServer::start`].
#[derive(Debug)]
pub struct DemoServer;

impl DemoServer {
    /// Binds the four origins and serves them on the current tokio runtime until the returned
    /// [`RunningDemo`] is shut down or dropped.
    pub async fn start(config: DemoConfig) -> Result<RunningDemo, DemoError> {
        config.ports.check_distinct()?;
        check_static_dirs(&config)?;
        let mut bound = Vec::with_capacity(Site::ALL.len());
        for site in Site::ALL {
            bound.push((site, bind_site(site, config.ports.get(site)).await?));
        }
        let origins = Arc::new(Origins::from_ports(|site| {
            bound.iter().find(|(owner, _)| *owner == site).map(|(_, listeners)| listeners.port).unwrap_or(0)
        }));
        let counters = Arc::new(Counters::default());
        let gates = Arc::new(Gates::default());
        let (shutdown, shutdown_signal) = watch::channel(false);
        let mut tasks = Vec::new();
        for (site, listeners) in bound {
            let state = SiteState {
                site,
                origins: origins.clone(),
                counters: counters.clone(),
                gates: gates.clone(),
                test_mode: config.test_mode,
            };
            let router = site_router(state, &config);
            for listener in listeners.sockets {
                let mut signal = shutdown_signal.clone();
                let serve = axum::serve(listener.tap_io(no_delay), router.clone())
                    .with_graceful_shutdown(async move {
                        // Ends on `true` or when the sender is dropped with the RunningDemo.
                        let _ = signal.wait_for(|stop| *stop).await;
                    })
                    .into_future();
                tasks.push((site, tokio::spawn(serve)));
            }
        }
        Ok(RunningDemo { origins, counters, gates, shutdown, tasks })
    }
}

/// Sends each response as soon as it is written. With Nagle's algorithm on (the socket default), a response whose
/// headers and body leave in two writes waits for the browser's delayed ACK of the first: about 40 ms per module or
/// file of a page on Linux loopback (measured on the benchmark's server, docs/measurements/history.md).
fn no_delay(stream: &mut TcpStream) {
    let _ = stream.set_nodelay(true);
}

/// A running demo. Dropping it stops the servers in the background; [`RunningDemo::shutdown`] waits for them.
#[derive(Debug)]
pub struct RunningDemo {
    origins: Arc<Origins>,
    counters: Arc<Counters>,
    gates: Arc<Gates>,
    shutdown: watch::Sender<bool>,
    tasks: Vec<(Site, JoinHandle<std::io::Result<()>>)>,
}

impl RunningDemo {
    /// The origin of `site`, e.g. `http://127.0.0.1:8401`.
    pub fn origin(&self, site: Site) -> &str {
        self.origins.get(site)
    }

    /// The origins of all sites.
    pub fn origins(&self) -> &Origins {
        &self.origins
    }

    /// The URL of `path` (starting with `/`) on `site`.
    pub fn url(&self, site: Site, path: &str) -> String {
        format!("{}{path}", self.origin(site))
    }

    /// How many times `site`'s pages counted `name` (a tool's real executions).
    pub fn counter(&self, site: Site, name: &str) -> u64 {
        self.counters.get(site, name)
    }

    /// All counters of `site`.
    pub fn counters_of(&self, site: Site) -> SiteCounters {
        self.counters.of_site(site)
    }

    /// Forgets every counter of every site.
    pub fn reset_counters(&self) {
        self.counters.reset_all();
    }

    /// Forgets, on every site, the counters whose name starts with `prefix` (one test's counters).
    pub fn reset_counters_with_prefix(&self, prefix: &str) {
        self.counters.reset_prefix(prefix);
    }

    /// The test gates of every site: see [`Gates`].
    pub fn gates(&self) -> &Gates {
        &self.gates
    }

    /// Stops accepting connections, lets open requests finish for a few seconds, then stops.
    pub async fn shutdown(mut self) -> Result<(), DemoError> {
        self.shutdown.send_replace(true);
        // Requests waiting at a gate end now instead of holding the shutdown for their timeout.
        self.gates.reset_prefix("");
        let mut first_error = None;
        for (site, mut task) in std::mem::take(&mut self.tasks) {
            let outcome = match tokio::time::timeout(SHUTDOWN_GRACE, &mut task).await {
                Ok(joined) => joined,
                Err(_elapsed) => {
                    task.abort();
                    continue;
                }
            };
            let error = match outcome {
                Ok(Ok(())) => None,
                Ok(Err(source)) => Some(DemoError::Serve { site, source }),
                Err(join_error) => Some(DemoError::Task { site, message: join_error.to_string() }),
            };
            first_error = first_error.or(error);
        }
        first_error.map_or(Ok(()), Err)
    }
}

impl Drop for RunningDemo {
    fn drop(&mut self) {
        self.shutdown.send_replace(true);
    }
}

/// The sockets of one site: one, or two for `localhost` (IPv4 and, when available, IPv6 on the same port).
struct SiteListeners {
    port: u16,
    sockets: Vec<TcpListener>,
}

async fn bind_site(site: Site, port: u16) -> Result<SiteListeners, DemoError> {
    let ip: IpAddr = match site.host().parse() {
        Ok(ip) => ip,
        // `localhost`: bind the IPv4 loopback explicitly, whatever the resolver prefers.
        Err(_) => IpAddr::V4(Ipv4Addr::LOCALHOST),
    };
    let address = SocketAddr::new(ip, port);
    let bind_error = |source| DemoError::Bind { site, address: format!("{}:{port}", site.host()), source };
    let listener = TcpListener::bind(address).await.map_err(bind_error)?;
    let port = listener.local_addr().map_err(bind_error)?.port();
    let mut sockets = vec![listener];
    if site.host() == "localhost" {
        // Browsers may try ::1 first for localhost. Holding it too keeps another program on [::1]:port from
        // answering for the widget. Best effort: a machine without IPv6 serves IPv4 only.
        if let Ok(v6) = TcpListener::bind(SocketAddr::new(IpAddr::V6(Ipv6Addr::LOCALHOST), port)).await {
            sockets.push(v6);
        }
    }
    Ok(SiteListeners { port, sockets })
}

fn check_static_dirs(config: &DemoConfig) -> Result<(), DemoError> {
    let names = Site::ALL.map(Site::name);
    for name in names.iter().copied().chain(["common"]) {
        let path = config.static_dir.join(name);
        if !path.is_dir() {
            return Err(DemoError::MissingStaticDir { path });
        }
    }
    Ok(())
}
