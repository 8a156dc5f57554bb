//! The API listener's service: every route (`/v1`, the compatible endpoints, gRPC,
//! `/openapi.json`), the request metrics on each, [`crate::edge::Edge`] around them and, when
//! configured, CORS outside.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::{MatchedPath, Request};
use axum::response::Response;

use crate::app::Server;
use crate::config;
use crate::error::ApiError;
use crate::{compat, edge, grpc, leaf, openapi, tinyid, v1};

impl Server {
    /// The API service: `/v1`, the compatible endpoints, gRPC, `/openapi.json`, behind the
    /// server's limits ([`edge::Edge`]) and, when configured, CORS.
    pub fn api_router(self: &Arc<Server>) -> edge::ApiService {
        let mut api = v1::routes().merge(openapi::routes());
        if self.config.leaf.enabled {
            api = api.merge(leaf::routes());
        }
        if self.config.tinyid.enabled {
            api = api.merge(tinyid::routes());
        }
        let api = api
            .route_layer(Observe(self.clone()))
            .fallback(|| async { ApiError::NotFound("no such route: see /openapi.json".into()) })
            .with_state(self.clone())
            .merge(grpc::router(self.clone()));
        let edge = edge::Edge::new(api, self.clone());
        match cors(&self.config.http) {
            Some(layer) => tower::util::Either::Left(tower::Layer::layer(&layer, edge)),
            None => tower::util::Either::Right(edge),
        }
    }
}

/// The CORS layer of `[http] cors_origins` (checked at start), outermost: it answers the
/// browsers' preflight requests itself and adds its headers to every answer, refusals
/// included, so a page reads a 401 or a 503 as such. Tokens, scopes and limits stay as they
/// are: a page sends its token in `Authorization` like any client. `None` when off.
///
/// ```
/// let mut http = idmint_server::config::HttpConfig::default();
/// assert!(idmint_server::cors(&http).is_none());
/// http.cors_origins = vec!["https://app.example".into()];
/// assert!(idmint_server::cors(&http).is_some());
/// ```
pub fn cors(http: &config::HttpConfig) -> Option<tower_http::cors::CorsLayer> {
    use axum::http::{header, HeaderValue, Method};
    use tower_http::cors::{AllowOrigin, CorsLayer};
    if http.cors_origins.is_empty() {
        return None;
    }
    let origins = if http.cors_origins.iter().any(|o| o == "*") {
        AllowOrigin::any()
    } else {
        AllowOrigin::list(
            http.cors_origins
                .iter()
                .filter_map(|o| HeaderValue::from_str(o).ok()),
        )
    };
    Some(
        CorsLayer::new()
            .allow_origin(origins)
            // The methods of the /v1 routes.
            .allow_methods([Method::GET, Method::POST, Method::PATCH])
            .allow_headers([header::AUTHORIZATION, header::CONTENT_TYPE])
            .expose_headers([header::RETRY_AFTER, header::WWW_AUTHENTICATE])
            .max_age(Duration::from_secs(600)),
    )
}

/// Counts every routed request by route pattern and status: a layer on each route (where
/// the route's pattern is known), timing the handler.
#[derive(Clone)]
struct Observe(Arc<Server>);

impl<S> tower::Layer<S> for Observe {
    type Service = Observed<S>;

    fn layer(&self, inner: S) -> Observed<S> {
        Observed {
            inner,
            server: self.0.clone(),
        }
    }
}

#[derive(Clone)]
struct Observed<S> {
    inner: S,
    server: Arc<Server>,
}

impl<S> tower::Service<Request> for Observed<S>
where
    S: tower::Service<Request, Response = Response, Error = std::convert::Infallible>,
{
    type Response = Response;
    type Error = std::convert::Infallible;
    type Future = Observing<S::Future>;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request) -> Self::Future {
        let route = req.extensions().get::<MatchedPath>().cloned();
        Observing {
            answer: self.inner.call(req),
            started: Instant::now(),
            route,
            server: self.server.clone(),
        }
    }
}

pin_project_lite::pin_project! {
    struct Observing<F> {
        #[pin]
        answer: F,
        started: Instant,
        route: Option<MatchedPath>,
        server: Arc<Server>,
    }
}

impl<F> std::future::Future for Observing<F>
where
    F: std::future::Future<Output = Result<Response, std::convert::Infallible>>,
{
    type Output = F::Output;

    fn poll(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Self::Output> {
        let this = self.project();
        let response = std::task::ready!(this.answer.poll(cx));
        if let (Ok(r), Some(route)) = (&response, this.route.as_ref()) {
            // A Tinyid refusal is a 200 on the wire (its protocol's) but counts as what it
            // stands for.
            let status = compat::Outcome::status_of(r);
            this.server
                .ids
                .metrics
                .request(route.as_str(), status, this.started.elapsed());
        }
        std::task::Poll::Ready(response)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use axum::body::Body;
    use axum::http::{header, Method, Request as HttpRequest, StatusCode};
    use tower::ServiceExt;

    async fn router(origins: &[&str]) -> crate::edge::ApiService {
        let mut config = Config {
            store: "memory:".into(),
            ..Config::default()
        };
        config.http.cors_origins = origins.iter().map(|o| o.to_string()).collect();
        config.check().expect("valid config");
        Server::open(config).await.expect("server").api_router()
    }

    fn preflight(origin: &str) -> HttpRequest<Body> {
        HttpRequest::builder()
            .method(Method::OPTIONS)
            .uri("/v1/leases")
            .header(header::ORIGIN, origin)
            .header(header::ACCESS_CONTROL_REQUEST_METHOD, "POST")
            .header(
                header::ACCESS_CONTROL_REQUEST_HEADERS,
                "authorization,content-type",
            )
            .body(Body::empty())
            .expect("request")
    }

    fn allowed(r: &Response) -> Option<&str> {
        r.headers()
            .get(header::ACCESS_CONTROL_ALLOW_ORIGIN)
            .and_then(|v| v.to_str().ok())
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn cors_answers_preflight_for_configured_origins_only() {
        let api = router(&["https://app.example"]).await;
        let ok = api
            .clone()
            .oneshot(preflight("https://app.example"))
            .await
            .expect("answer");
        assert_eq!(ok.status(), StatusCode::OK);
        assert_eq!(allowed(&ok), Some("https://app.example"));
        let listed = |name: header::HeaderName| {
            let text = ok.headers()[name].to_str().expect("ascii");
            text.to_ascii_lowercase()
        };
        let methods = listed(header::ACCESS_CONTROL_ALLOW_METHODS);
        assert!(
            methods.contains("post") && methods.contains("get"),
            "{methods}"
        );
        let headers = listed(header::ACCESS_CONTROL_ALLOW_HEADERS);
        assert!(
            headers.contains("authorization") && headers.contains("content-type"),
            "{headers}"
        );

        let other = api
            .clone()
            .oneshot(preflight("https://evil.example"))
            .await
            .expect("answer");
        assert_eq!(allowed(&other), None);

        // An actual call from the page: the answer carries the header, the route still runs.
        let call = HttpRequest::builder()
            .method(Method::POST)
            .uri("/v1/segment/orders/range?count=3")
            .header(header::ORIGIN, "https://app.example")
            .body(Body::empty())
            .expect("request");
        let r = api.oneshot(call).await.expect("answer");
        assert_eq!(r.status(), StatusCode::OK);
        assert_eq!(allowed(&r), Some("https://app.example"));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn cors_is_off_by_default() {
        let api = router(&[]).await;
        let r = api
            .oneshot(preflight("https://app.example"))
            .await
            .expect("answer");
        assert_eq!(allowed(&r), None);
    }

    #[test]
    fn cors_origins_are_checked_naming_the_key() {
        let mut c = Config::default();
        c.http.cors_origins = vec!["https://a.example".into(), "app.example".into()];
        let e = c.check().unwrap_err().to_string();
        assert!(e.starts_with("config key `http.cors_origins[1]`"), "{e}");
        c.http.cors_origins = vec!["*".into(), "https://a.example".into()];
        let e = c.check().unwrap_err().to_string();
        assert!(e.starts_with("config key `http.cors_origins[0]`"), "{e}");
    }
}
