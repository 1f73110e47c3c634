//! `GET /metrics`: OpenMetrics through the `prometheus-client` crate, which holds the registry
//! and writes the format, or the Prometheus text format 0.0.4 made from it ([`Format`], by the
//! request's `Accept`).
//!
//! Recording on the hot path takes no lock and allocates nothing: every series a request can
//! touch exists before the first request, and every scrape shows each of them, at 0 until it
//! moves (so that `rate()` sees a series' first increase). `keyhook_http_requests_total{route,status}` and
//! `keyhook_http_request_duration_seconds{route}` are plain atomics in arrays indexed by the
//! route template (the router's, never the raw path: a client cannot create label values)
//! and by the status among [`STATUSES`] (anything else is `other`), encoded at scrape time by
//! a `Collector`. (prometheus-client's own `Family` takes
//! a read lock and its `Histogram` a mutex per observation, which is why those two are ours.)
//! `keyhook_auth_failures_total{reason}` and `keyhook_deliveries_total{outcome}` are
//! prometheus-client `Counter`s (one `AtomicU64` each), created for every reason and outcome
//! up front and kept as handles. The outbox gauges are a query at scrape time.
//! `keyhook_filter_errors_total` is the core's count of events skipped for a webhook whose
//! filter could not judge them, in this process (`service::routing::filter_errors_total`),
//! read at scrape.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::{ConstCounter, Counter};
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::Registry;

use super::router::{self, Match, UNMATCHED};
use keyhook_core::store::Backend;
use keyhook_core::time::Clock;

/// The statuses counted by their own label value; any other is `other`.
pub const STATUSES: &[u16] = &[
    200, 201, 202, 204, 400, 401, 403, 404, 405, 408, 409, 410, 413, 415, 422, 429, 431, 500, 501,
    503,
];

/// Upper bounds of the duration histogram's buckets, in seconds (+Inf follows).
const BUCKETS: &[f64] = &[
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// Why an authentication failed (`keyhook_auth_failures_total{reason}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthFailure {
    /// No usable `Authorization: Bearer` header.
    MissingHeader,
    /// A token that is not key-shaped.
    Malformed,
    /// A well-formed key that is not stored (deleted, rotated away, guessed).
    UnknownKey,
    Expired,
    /// Refused for earlier failures from its address (`--rate-limit`), not looked at.
    RateLimited,
}

impl AuthFailure {
    const ALL: [AuthFailure; 5] = [
        AuthFailure::MissingHeader,
        AuthFailure::Malformed,
        AuthFailure::UnknownKey,
        AuthFailure::Expired,
        AuthFailure::RateLimited,
    ];

    fn label(self) -> &'static str {
        match self {
            AuthFailure::MissingHeader => "missing_header",
            AuthFailure::Malformed => "malformed",
            AuthFailure::UnknownKey => "unknown_key",
            AuthFailure::Expired => "expired",
            AuthFailure::RateLimited => "rate_limited",
        }
    }
}

/// `keyhook_deliveries_total{outcome}`: what the outbox worker settled.
pub const OUTCOMES: [&str; 4] = ["delivered", "retrying", "failed", "cancelled"];

/// One route's duration histogram: counts per bucket, the count and the sum (in ns).
struct Histogram {
    buckets: Box<[AtomicU64]>,
    count: AtomicU64,
    sum_ns: AtomicU64,
}

impl Histogram {
    fn new() -> Histogram {
        Histogram {
            buckets: (0..=BUCKETS.len()).map(|_| AtomicU64::new(0)).collect(),
            count: AtomicU64::new(0),
            sum_ns: AtomicU64::new(0),
        }
    }

    fn observe(&self, d: Duration) {
        let secs = d.as_secs_f64();
        let i = BUCKETS
            .iter()
            .position(|b| secs <= *b)
            .unwrap_or(BUCKETS.len());
        self.buckets[i].fetch_add(1, Ordering::Relaxed);
        self.sum_ns.fetch_add(
            u64::try_from(d.as_nanos()).unwrap_or(u64::MAX),
            Ordering::Relaxed,
        );
        self.count.fetch_add(1, Ordering::Relaxed);
    }
}

/// The HTTP request metrics: atomics only, indexed by route and status.
struct Http {
    /// Route labels: `/api/v1` + each template of [`router::ROUTES`], the portal's
    /// [`TEMPLATES`](super::portal::routes::TEMPLATES), `/healthz`, `/metrics`, then [`UNMATCHED`]. Built once at start.
    routes: Vec<&'static str>,
    /// `requests[route * (STATUSES.len() + 1) + status]`; the last status column is `other`.
    requests: Box<[AtomicU64]>,
    durations: Box<[Histogram]>,
}

impl std::fmt::Debug for Http {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Http")
    }
}

impl Http {
    fn new() -> Http {
        let mut routes: Vec<&'static str> = Vec::new();
        for (template, _) in router::ROUTES {
            // Leaked once per distinct template at start: label values live as long as the
            // process, and a `&'static str` costs nothing per request.
            let label: &'static str = Box::leak(format!("/api/v1{template}").into_boxed_str());
            if !routes.contains(&label) {
                routes.push(label);
            }
        }
        routes.extend(super::portal::routes::TEMPLATES);
        routes.extend(["/healthz", "/metrics", UNMATCHED]);
        let cells = routes.len() * (STATUSES.len() + 1);
        Http {
            requests: (0..cells).map(|_| AtomicU64::new(0)).collect(),
            durations: routes.iter().map(|_| Histogram::new()).collect(),
            routes,
        }
    }

    /// The index of the label of a router template (`/api-keys/{id}`): a comparison of
    /// static strings, no allocation.
    fn template_index(&self, template: &str) -> usize {
        self.routes
            .iter()
            .position(|r| r.strip_prefix("/api/v1") == Some(template))
            .unwrap_or(self.routes.len() - 1)
    }

    fn route_index(&self, label: &str) -> usize {
        self.routes
            .iter()
            .position(|r| *r == label)
            .unwrap_or(self.routes.len() - 1)
    }
}

/// The collector that writes [`Http`]'s atomics at scrape time.
#[derive(Debug)]
struct HttpCollector(Arc<Http>);

impl Collector for HttpCollector {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        {
            let mut family = encoder.encode_descriptor(
                "keyhook_http_requests",
                "HTTP requests answered, by route template and status",
                None,
                MetricType::Counter,
            )?;
            let width = STATUSES.len() + 1;
            for (i, cell) in self.0.requests.iter().enumerate() {
                let n = cell.load(Ordering::Relaxed);
                let route = self.0.routes[i / width];
                let status = STATUSES
                    .get(i % width)
                    .map_or_else(|| "other".to_string(), u16::to_string);
                let labels = [("route", route), ("status", status.as_str())];
                ConstCounter::new(n).encode(family.encode_family(&labels)?)?;
            }
        }
        let mut family = encoder.encode_descriptor(
            "keyhook_http_request_duration_seconds",
            "Time from a request's arrival to its response's end, by route template",
            None,
            MetricType::Histogram,
        )?;
        for (route, h) in self.0.routes.iter().zip(self.0.durations.iter()) {
            let count = h.count.load(Ordering::Relaxed);
            let buckets: Vec<(f64, u64)> = BUCKETS
                .iter()
                .copied()
                .chain([f64::INFINITY])
                .zip(h.buckets.iter().map(|b| b.load(Ordering::Relaxed)))
                .collect();
            let sum = h.sum_ns.load(Ordering::Relaxed) as f64 / 1e9;
            let labels = [("route", *route)];
            family
                .encode_family(&labels)?
                .encode_histogram::<NoLabels>(sum, count, &buckets, None)?;
        }
        Ok(())
    }
}

type NoLabels = prometheus_client::encoding::NoLabelSet;

/// The outbox gauges: one query at each scrape, through the backend.
struct Outbox {
    db: Arc<dyn Backend>,
    clock: Clock,
}

impl std::fmt::Debug for Outbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Outbox")
    }
}

impl Collector for Outbox {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        // A database that does not answer leaves the two gauges out of this scrape (a gap,
        // not a made-up zero); /healthz says why.
        let backlog = self
            .db
            .connect()
            .and_then(|s| Ok(s.conn().outbox_backlog()?));
        let (pending, oldest) = match backlog {
            Ok(b) => b,
            Err(e) => {
                super::reply::log(&format!("keyhook: metrics: outbox backlog: {e}"));
                return Ok(());
            }
        };
        let age = oldest.map_or(0.0, |t| {
            ((self.clock.now().millis() - t.millis()).max(0) as f64) / 1000.0
        });
        let g = ConstGauge::new(pending as i64);
        g.encode(encoder.encode_descriptor(
            "keyhook_outbox_pending",
            "Deliveries not yet settled (due, leased or waiting for a retry)",
            None,
            g.metric_type(),
        )?)?;
        let g = ConstGauge::new(age);
        g.encode(encoder.encode_descriptor(
            "keyhook_outbox_oldest_pending_age_seconds",
            "Age of the oldest pending delivery (0 when there is none)",
            None,
            g.metric_type(),
        )?)?;
        Ok(())
    }
}

/// `keyhook_filter_errors_total`, read from the core at scrape time.
#[derive(Debug)]
struct FilterErrors;

impl Collector for FilterErrors {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let c = ConstCounter::new(keyhook_core::service::routing::filter_errors_total());
        c.encode(encoder.encode_descriptor(
            "keyhook_filter_errors",
            "Events skipped for a webhook because its filter could not judge them (an evaluation error, a non-boolean, a stored filter that no longer compiles)",
            None,
            c.metric_type(),
        )?)
    }
}

/// The server's metrics: the registry (read at scrape) and the handles requests record into.
pub struct Metrics {
    registry: Registry,
    http: Arc<Http>,
    auth_failures: [Counter; AuthFailure::ALL.len()],
    deliveries: [Counter; OUTCOMES.len()],
}

/// A request's route, found once for its metrics.
#[derive(Debug, Clone, Copy)]
pub struct RouteId(usize);

impl Metrics {
    pub fn new(db: Arc<dyn Backend>, clock: Clock) -> Metrics {
        let mut registry = Registry::default();
        let http = Arc::new(Http::new());
        registry.register_collector(Box::new(HttpCollector(Arc::clone(&http))));
        let auth: Family<[(&'static str, &'static str); 1], Counter> = Family::default();
        registry.register(
            "keyhook_auth_failures",
            "Failed authentications under /api/v1, by reason",
            auth.clone(),
        );
        let auth_failures =
            AuthFailure::ALL.map(|r| auth.get_or_create(&[("reason", r.label())]).clone());
        let outcomes: Family<[(&'static str, &'static str); 1], Counter> = Family::default();
        registry.register(
            "keyhook_deliveries",
            "Webhook deliveries settled by this instance's outbox worker, by outcome",
            outcomes.clone(),
        );
        let deliveries = OUTCOMES.map(|o| outcomes.get_or_create(&[("outcome", o)]).clone());
        registry.register_collector(Box::new(Outbox { db, clock }));
        registry.register_collector(Box::new(FilterErrors));
        Metrics {
            registry,
            http,
            auth_failures,
            deliveries,
        }
    }

    /// The route label of a request for `target`: the router's template, the portal's,
    /// `/healthz`, `/metrics`, or [`UNMATCHED`]. `routed`: the target's path under `/api/v1`
    /// (`router::api_path`) and what the router found there, when it is under it; a request
    /// is routed once, for its label and its dispatch.
    pub fn route_of(&self, target: &str, routed: Option<(&str, &Match<'_>)>) -> RouteId {
        let label = match routed.map(|(p, m)| (p, super::router::auth_path(p), m)) {
            Some(("/openapi.json", _, _)) => "/api/v1/openapi.json",
            Some((_, Some(None), _)) => "/api/v1/auth",
            Some((_, Some(Some(_)), _)) => "/api/v1/auth/{path}",
            Some((_, None, Match::Found(route))) => {
                return RouteId(self.http.template_index(route.template()))
            }
            Some(_) => UNMATCHED,
            None => match super::router::path_of(target) {
                "/healthz" => "/healthz",
                "/metrics" => "/metrics",
                p => super::portal::routes::template(p).unwrap_or(UNMATCHED),
            },
        };
        RouteId(self.http.route_index(label))
    }

    /// The label of `route` (`keyhook_http_requests_total{route}`), which the access log's
    /// `route` field names too.
    pub fn label(&self, route: RouteId) -> &'static str {
        self.http.routes.get(route.0).copied().unwrap_or(UNMATCHED)
    }

    /// Counts one answered request: two atomic additions and a histogram's three.
    pub fn record(&self, route: RouteId, status: u16, took: Duration) {
        let width = STATUSES.len() + 1;
        let s = STATUSES
            .iter()
            .position(|x| *x == status)
            .unwrap_or(STATUSES.len());
        if let Some(cell) = self.http.requests.get(route.0 * width + s) {
            cell.fetch_add(1, Ordering::Relaxed);
        }
        if let Some(h) = self.http.durations.get(route.0) {
            h.observe(took);
        }
    }

    pub fn auth_failure(&self, why: AuthFailure) {
        let i = AuthFailure::ALL
            .iter()
            .position(|r| *r == why)
            .expect("ALL lists every reason");
        self.auth_failures[i].inc();
    }

    /// What the outbox worker settled in one committed transaction.
    pub fn settled(&self, delivered: u64, retrying: u64, failed: u64, cancelled: u64) {
        for (counter, n) in self
            .deliveries
            .iter()
            .zip([delivered, retrying, failed, cancelled])
        {
            if n > 0 {
                counter.inc_by(n);
            }
        }
    }

    /// The text of a scrape, in `format`.
    pub fn render(&self, format: Format) -> String {
        let mut out = String::with_capacity(65536);
        if let Err(e) = prometheus_client::encoding::text::encode(&mut out, &self.registry) {
            super::reply::log(&format!("keyhook: metrics: cannot encode: {e}"));
        }
        match format {
            Format::OpenMetrics => out,
            Format::Text => text_004(&out),
        }
    }
}

/// The two formats `/metrics` answers in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// OpenMetrics 1.0 (`application/openmetrics-text`), what Prometheus asks for first.
    OpenMetrics,
    /// The Prometheus text format 0.0.4 (`text/plain`), what `curl`, `promtool check metrics`
    /// and older scrapers read.
    Text,
}

impl Format {
    /// The format an `Accept` header asks for: OpenMetrics when it names
    /// `application/openmetrics-text` with a quality above 0 and no lower than that of any
    /// other range it names; otherwise (no header, `*/*`, `text/plain`...) the text format.
    pub fn negotiate(accept: Option<&str>) -> Format {
        let Some(accept) = accept else {
            return Format::Text;
        };
        let (mut open, mut other) = (None::<f32>, 0.0f32);
        for range in accept.split(',') {
            let mut parts = range.split(';');
            let media = parts.next().unwrap_or("").trim().to_ascii_lowercase();
            let q = parts
                .filter_map(|p| p.split_once('='))
                .find(|(k, _)| k.trim().eq_ignore_ascii_case("q"))
                .map_or(Some(1.0), |(_, v)| v.trim().parse::<f32>().ok())
                .unwrap_or(0.0);
            if media == "application/openmetrics-text" {
                open = Some(open.map_or(q, |o| o.max(q)));
            } else if !media.is_empty() {
                other = other.max(q);
            }
        }
        match open {
            Some(q) if q > 0.0 && q >= other => Format::OpenMetrics,
            _ => Format::Text,
        }
    }

    pub fn content_type(self) -> &'static str {
        match self {
            Format::OpenMetrics => "application/openmetrics-text; version=1.0.0; charset=utf-8",
            Format::Text => "text/plain; version=0.0.4; charset=utf-8",
        }
    }
}

/// OpenMetrics text as the Prometheus text format 0.0.4: a counter family is named by its
/// sample (`keyhook_deliveries_total`, which OpenMetrics calls `keyhook_deliveries`), and the
/// `# EOF` and `# UNIT` lines, which 0.0.4 does not have, are left out. Samples, labels and
/// their escaping are the same in both.
fn text_004(open: &str) -> String {
    let counters: Vec<&str> = open
        .lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .filter_map(|l| l.strip_suffix(" counter"))
        .collect();
    let mut out = String::with_capacity(open.len() + 64);
    for line in open.lines() {
        if line == "# EOF" || line.starts_with("# UNIT ") {
            continue;
        }
        let meta = ["# HELP ", "# TYPE "]
            .into_iter()
            .find_map(|p| line.strip_prefix(p).map(|rest| (p, rest)));
        match meta {
            Some((p, rest)) => {
                let name = rest.split(' ').next().unwrap_or("");
                out.push_str(p);
                out.push_str(name);
                if counters.contains(&name) {
                    out.push_str("_total");
                }
                out.push_str(&rest[name.len()..]);
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_picks_the_format() {
        for (accept, want) in [
            (None, Format::Text),
            (Some("*/*"), Format::Text),
            (Some("text/plain"), Format::Text),
            (Some("text/plain;version=0.0.4"), Format::Text),
            (Some("application/openmetrics-text"), Format::OpenMetrics),
            (Some("Application/OpenMetrics-Text; version=1.0.0"), Format::OpenMetrics),
            // What Prometheus 2.x sends.
            (Some("application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"), Format::OpenMetrics),
            (Some("text/plain;q=1, application/openmetrics-text;q=0.5"), Format::Text),
            (Some("application/openmetrics-text;q=0"), Format::Text),
            (Some("application/openmetrics-text;q=x"), Format::Text),
            (Some("application/json"), Format::Text),
        ] {
            assert_eq!(Format::negotiate(accept), want, "{accept:?}");
        }
    }

    #[test]
    fn the_text_format_names_counters_by_their_samples() {
        let open = "# HELP a_b Things.\n# TYPE a_b counter\na_b_total{x=\"1\"} 0\n\
                    # HELP g A gauge.\n# TYPE g gauge\n# UNIT g seconds\ng 1.5\n# EOF\n";
        assert_eq!(
            text_004(open),
            "# HELP a_b_total Things.\n# TYPE a_b_total counter\na_b_total{x=\"1\"} 0\n\
             # HELP g A gauge.\n# TYPE g gauge\ng 1.5\n"
        );
    }
}
