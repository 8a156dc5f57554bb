//! idmint's own HTTP API, `/v1/…`, JSON. Each handler authorizes, makes one core call and
//! converts its answer; the rules (counts, ranges, TTLs, error texts) are core's.
//!
//! IDs in JSON are **strings by default** (`"ids": ["1541815603606036480"]`), because a
//! JavaScript reader rounds a number above 2^53; `?ids=number` returns numbers, written digit
//! for digit, for readers that keep 64-bit integers (Go, Java, Python, `jq`).

use std::sync::Arc;

use axum::extract::rejection::PathRejection;
use axum::extract::{Path, Query, State};
use axum::http::{header, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, patch, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use idmint_core::formats::{self, Decoded, Format};
pub use idmint_core::json::IdsAs;
use idmint_core::wire::{
    AcquireBody, CreateTag, LeaseOut, LeaseRow, RangeOut, ReleaseBody, Released, RenewBody, TagOut,
    UpdateTag,
};

use crate::auth::{Bearer, Need};
use crate::error::{ApiError, ErrorBody};
use crate::Server;

/// The `/v1` routes.
pub fn routes() -> Router<Arc<Server>> {
    Router::new()
        .route("/v1/segment/{tag}", post(segment).get(segment_tag))
        .route("/v1/segment/{tag}/range", post(segment_range))
        .route("/v1/snowflake", post(snowflake))
        .route("/v1/objectid", post(object_id))
        .route("/v1/uuid7", post(uuid7))
        .route("/v1/orders/{name}", post(orders))
        .route("/v1/parse", get(parse))
        .route("/v1/layout", get(layout))
        .route("/v1/leases", post(lease_acquire))
        .route("/v1/leases/{value}/renew", post(lease_renew))
        .route("/v1/leases/{value}/release", post(lease_release))
        .route("/v1/admin/tags", get(tags_list).post(tags_create))
        .route("/v1/admin/tags/{tag}", patch(tags_update))
        .route("/v1/admin/leases", get(leases_list))
        .method_not_allowed_fallback(method_not_allowed)
}

/// A route asked with a method it does not take: 405 with the JSON error body (kind
/// `method_not_allowed`); axum adds the `Allow` header.
pub(crate) async fn method_not_allowed(method: Method) -> Response {
    ApiError::MethodNotAllowed(method.to_string()).into_response()
}

/// A tag or template name as a path segment: `Path<String>`'s rejection (a segment that is not
/// UTF-8 once percent-decoded) as the JSON error, like every other refusal.
fn name_of(p: Result<Path<String>, PathRejection>) -> Result<String, ApiError> {
    Ok(p?.0)
}

/// How many IDs, and how to write them.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CountQuery {
    /// How many IDs (1 ..= the server's `max_count`, default 1).
    #[param(minimum = 1)]
    pub count: Option<u64>,
    /// `string` (default): IDs as JSON strings; `number`: as JSON numbers (above 2^53 a
    /// JavaScript reader rounds them).
    #[param(inline)]
    pub ids: Option<IdsAs>,
}

/// A list of IDs, written straight into the body: a batch of 100 000 is one buffer, not
/// 100 000 JSON values, and one ID is one allocation, handed to hyper as it is.
fn id_list(
    key: &str,
    extra: &[(&str, &str)],
    ids: impl Iterator<Item = u64>,
    as_: Option<IdsAs>,
) -> Response {
    let quote = as_.unwrap_or_default().quotes_ids();
    // Room for every ID at its widest (20 digits, 2 quotes, a comma): one allocation, no copy
    // as a batch's body grows.
    let mut out = Vec::with_capacity(64 + ids.size_hint().0 * 23);
    out.push(b'{');
    for (k, v) in extra {
        for text in [k, v] {
            serde_json::to_writer(&mut out, text).expect("a str serializes");
            out.push(b':');
        }
        *out.last_mut().expect("just written") = b',';
    }
    out.push(b'"');
    out.extend_from_slice(key.as_bytes());
    out.extend_from_slice(b"\":[");
    let mut buf = itoa::Buffer::new();
    for (i, id) in ids.enumerate() {
        if i > 0 {
            out.push(b',');
        }
        if quote {
            out.push(b'"');
        }
        out.extend_from_slice(buf.format(id).as_bytes());
        if quote {
            out.push(b'"');
        }
    }
    out.extend_from_slice(b"]}");
    let mut response = Response::new(axum::body::Body::from(out));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/json"),
    );
    response
}

fn text_list(ids: impl Iterator<Item = String>) -> Response {
    Json(TextIds { ids: ids.collect() }).into_response()
}

/// IDs written as text (ObjectIds, UUIDs, order numbers).
#[derive(Debug, Serialize, ToSchema)]
pub struct TextIds {
    /// The IDs.
    pub ids: Vec<String>,
}

// The handlers write this shape straight into the body (`id_list`); the type is its schema.
/// Numeric IDs: strings unless `?ids=number`.
#[derive(Debug, Serialize, ToSchema)]
pub struct NumericIds {
    /// The tag (segment IDs only).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false, pattern = "^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$")]
    pub tag: Option<String>,
    /// The IDs: decimal strings by default, JSON numbers with `?ids=number`.
    #[schema(schema_with = numeric_id_list)]
    pub ids: Vec<u64>,
}

/// `ids` of [`NumericIds`]: one of two arrays, never a mix.
fn numeric_id_list() -> utoipa::openapi::schema::Schema {
    use utoipa::openapi::schema::{
        ArrayBuilder, KnownFormat, ObjectBuilder, OneOfBuilder, Schema, SchemaFormat, Type,
    };
    let one_of = OneOfBuilder::new()
        .item(
            ArrayBuilder::new()
                .items(
                    ObjectBuilder::new()
                        .schema_type(Type::String)
                        .pattern(Some("^[0-9]{1,20}$"))
                        .description(Some("An ID in decimal (the default, `?ids=string`)")),
                )
                .min_items(Some(1)),
        )
        .item(
            ArrayBuilder::new()
                .items(
                    ObjectBuilder::new()
                        .schema_type(Type::Integer)
                        .format(Some(SchemaFormat::KnownFormat(KnownFormat::Int64)))
                        .minimum(Some(0))
                        .description(Some(
                            "An ID as a JSON number (`?ids=number`); a JavaScript reader rounds it above 2^53",
                        )),
                )
                .min_items(Some(1)),
        )
        .description(Some(
            "The IDs, in the order minted: decimal strings by default, JSON numbers with `?ids=number`",
        ))
        .build();
    Schema::OneOf(one_of)
}

/// Segment IDs of a tag.
#[utoipa::path(post, path = "/v1/segment/{tag}", tag = "mint",
    params(("tag" = String, Path, description = "The tag: 1 to 128 of A-Z a-z 0-9 _ . : -, starting with a letter or digit", pattern = "^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$"), CountQuery),
    responses((status = 200, description = "`count` IDs of the tag, contiguous, unique across every server and client of the store", body = NumericIds),
        (status = 404, description = "`unknown_tag` (with `segment.auto_create = false`), or no such route", body = ErrorBody),
        (status = 409, description = "`tag_exhausted`", body = ErrorBody),
        (status = "4XX", description = "refused: `bad_request`, `invalid_argument`, `invalid_tag`, `unauthorized`, `forbidden`, `rate_limited`, …", body = ErrorBody),
        (status = 503, description = "`store_unavailable` past the buffered IDs; retry", body = ErrorBody)),
    security(("bearer" = [])))]
async fn segment(
    State(s): State<Arc<Server>>,
    bearer: Bearer,
    tag: Result<Path<String>, PathRejection>,
    q: Result<Query<CountQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, ApiError> {
    let tag = name_of(tag)?;
    s.auth().check(&bearer, Need::mint("segment", &tag))?;
    let Query(q) = q?;
    let range = s.ids.segment_range(&tag, q.count).await?;
    Ok(id_list("ids", &[("tag", &tag)], range.into_iter(), q.ids))
}

/// `count` contiguous segment IDs of a tag.
#[utoipa::path(post, path = "/v1/segment/{tag}/range", tag = "mint",
    params(("tag" = String, Path, description = "The tag", pattern = "^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$"), CountQuery),
    responses((status = 200, description = "The range: `start` ..= `last`", body = RangeOut),
        (status = 404, description = "`unknown_tag`, or no such route", body = ErrorBody),
        (status = 409, description = "`tag_exhausted`", body = ErrorBody),
        (status = "4XX", description = "refused", body = ErrorBody),
        (status = 503, description = "`store_unavailable`; retry", body = ErrorBody)),
    security(("bearer" = [])))]
async fn segment_range(
    State(s): State<Arc<Server>>,
    bearer: Bearer,
    tag: Result<Path<String>, PathRejection>,
    q: Result<Query<CountQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<RangeOut>, ApiError> {
    let tag = name_of(tag)?;
    s.auth().check(&bearer, Need::mint("segment", &tag))?;
    let Query(q) = q?;
    let range = s.ids.segment_range(&tag, q.count).await?;
    Ok(Json(RangeOut::of(&tag, range)))
}

/// A tag as the store holds it, for a client with the tag's mint scope (an `http(s)://` store's
/// segment client learns the step and this server's `max_count` from it). An unknown tag is
/// created first when `segment.auto_create` allows.
#[utoipa::path(get, path = "/v1/segment/{tag}", tag = "mint",
    params(("tag" = String, Path, description = "The tag", pattern = "^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$")),
    responses((status = 200, description = "The tag, with `max_count`", body = TagOut),
        (status = 404, description = "`unknown_tag` (with `segment.auto_create = false`)", body = ErrorBody),
        (status = "4XX", description = "refused", body = ErrorBody),
        (status = 503, description = "`store_unavailable`; retry", body = ErrorBody)),
    security(("bearer" = [])))]
async fn segment_tag(
    State(s): State<Arc<Server>>,
    bearer: Bearer,
    tag: Result<Path<String>, PathRejection>,
) -> Result<Json<TagOut>, ApiError> {
    let tag = name_of(tag)?;
    s.auth().check(&bearer, Need::mint("segment", &tag))?;
    let mut out = TagOut::from(s.ids.tag_info(&tag).await?);
    out.max_count = Some(s.ids.max_count as u64);
    Ok(Json(out))
}

/// Snowflake IDs from the server's leased node value.
#[utoipa::path(post, path = "/v1/snowflake", tag = "mint", params(CountQuery),
    responses((status = 200, description = "`count` snowflake IDs, increasing", body = NumericIds),
        (status = 409, description = "`lease_lost`: this server lost its node lease and refuses to mint; `layout_exhausted`: the layout's time field has run out", body = ErrorBody),
        (status = "4XX", description = "refused", body = ErrorBody),
        (status = 503, description = "`clock_moved_backwards` or `would_block`; retry", body = ErrorBody)),
    security(("bearer" = [])))]
async fn snowflake(
    State(s): State<Arc<Server>>,
    bearer: Bearer,
    q: Result<Query<CountQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, ApiError> {
    s.auth().check(&bearer, Need::mint("snowflake", ""))?;
    let Query(q) = q?;
    let ids = s.ids.snowflakes(q.count).await?;
    Ok(id_list("ids", &[], ids.into_iter(), q.ids))
}

/// ObjectIds, 24 lowercase hex digits.
#[utoipa::path(post, path = "/v1/objectid", tag = "mint", params(CountQuery),
    responses((status = 200, description = "`count` ObjectIds, 24 lowercase hex digits each", body = TextIds),
        (status = "4XX", description = "refused", body = ErrorBody),
        (status = 503, description = "the request timed out or the server is stopping; retry", body = ErrorBody)),
    security(("bearer" = [])))]
async fn object_id(
    State(s): State<Arc<Server>>,
    bearer: Bearer,
    q: Result<Query<CountQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, ApiError> {
    s.auth().check(&bearer, Need::mint("objectid", ""))?;
    let Query(q) = q?;
    Ok(text_list(
        s.ids.object_ids(q.count)?.iter().map(|o| o.to_hex()),
    ))
}

/// UUIDv7s, canonical text.
#[utoipa::path(post, path = "/v1/uuid7", tag = "mint", params(CountQuery),
    responses((status = 200, description = "`count` UUIDv7s, canonical lowercase text, increasing", body = TextIds),
        (status = "4XX", description = "refused", body = ErrorBody),
        (status = 503, description = "the request timed out or the server is stopping; retry", body = ErrorBody)),
    security(("bearer" = [])))]
async fn uuid7(
    State(s): State<Arc<Server>>,
    bearer: Bearer,
    q: Result<Query<CountQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, ApiError> {
    s.auth().check(&bearer, Need::mint("uuid7", ""))?;
    let Query(q) = q?;
    Ok(text_list(
        s.ids.uuid7s(q.count)?.iter().map(|u| u.to_string()),
    ))
}

/// Order numbers of a configured template.
#[utoipa::path(post, path = "/v1/orders/{name}", tag = "mint",
    params(("name" = String, Path, description = "A template configured under `[orders.NAME]` (an unknown name is 400 `invalid_template`)"), CountQuery),
    responses((status = 200, description = "`count` order numbers of the template", body = TextIds),
        (status = 409, description = "`counter_overflow`: the day's counter has run out of digits", body = ErrorBody),
        (status = "4XX", description = "refused", body = ErrorBody),
        (status = 503, description = "`store_unavailable`; retry", body = ErrorBody)),
    security(("bearer" = [])))]
async fn orders(
    State(s): State<Arc<Server>>,
    bearer: Bearer,
    name: Result<Path<String>, PathRejection>,
    q: Result<Query<CountQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, ApiError> {
    let name = name_of(name)?;
    s.auth().check(&bearer, Need::mint("orders", &name))?;
    let Query(q) = q?;
    Ok(text_list(
        s.ids.order_numbers(&name, q.count).await?.into_iter(),
    ))
}

/// What to parse.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ParseQuery {
    /// The ID: decimal, an ObjectId, a UUID, a ULID, a KSUID, an xid or a TSID.
    #[param(schema_with = id_text, required = true)]
    pub id: String,
    /// A preset name or layout spec to read a decimal ID with (default: the server's layout).
    pub layout: Option<String>,
    /// Read the ID as this format only, without telling formats apart (a TSID of digits alone
    /// reads as decimal otherwise; `integer`: a decimal ID as a 64-bit integer, with no layout).
    #[param(schema_with = format_name)]
    pub format: Option<String>,
    /// `string` (default): the ID's 64-bit integers as JSON strings; `number`: as JSON numbers
    /// (above 2^53 a JavaScript reader rounds them).
    #[param(inline)]
    pub ids: Option<IdsAs>,
}

/// `id` of [`ParseQuery`]: the text of any format core reads, from core's own patterns.
fn id_text() -> utoipa::openapi::schema::Object {
    let mut patterns: Vec<&str> = Format::ALL.iter().map(|f| f.pattern()).collect();
    patterns.dedup();
    utoipa::openapi::schema::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::String)
        .pattern(Some(format!("^(({}))$", patterns.join(")|("))))
        .description(Some(
            "The ID: decimal, an ObjectId, a UUID, a ULID, a KSUID, an xid or a TSID",
        ))
        .build()
}

/// `format` of [`ParseQuery`]: core's format names.
fn format_name() -> utoipa::openapi::schema::Object {
    utoipa::openapi::schema::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::String)
        .enum_values(Some(Format::ALL.map(Format::name)))
        .description(Some(
            "Read the ID as this format only, without telling formats apart (a TSID of digits \
             alone reads as decimal otherwise; `integer`: a decimal ID as a 64-bit integer)",
        ))
        .build()
}

/// Takes `id` apart for `/v1/parse` and gRPC's `Parse`: as `format` when one is named, else as
/// core tells formats apart; a decimal ID with `layout`, or the server's own layout.
pub(crate) fn decode(
    s: &Server,
    id: &str,
    layout: Option<&str>,
    format: Option<&str>,
) -> Result<Decoded, ApiError> {
    let layout = match layout {
        Some(l) => idmint_core::Layout::parse(l)?,
        None => s.ids.snowflake.layout().clone(),
    };
    Ok(match format {
        Some(f) => formats::decode_as(id, f.parse::<Format>()?, Some(&layout))?,
        None => formats::decode(id, Some(&layout))?,
    })
}

/// Takes an ID of any format apart: the JSON `idmint parse` prints too, byte for byte, with the
/// same keys for every format.
#[utoipa::path(get, path = "/v1/parse", tag = "read", params(ParseQuery),
    responses((status = 200, description = "The ID taken apart: `format`, `id`, `value`, `time_ms`, `time`, `layout`, `parts` (docs/formats.md)", body = Decoded),
        (status = "4XX", description = "not an ID of any format (`invalid_id`, `invalid_object_id`), a bad layout or format, or refused", body = ErrorBody),
        (status = 503, description = "the request timed out or the server is stopping; retry", body = ErrorBody)),
    security(("bearer" = [])))]
async fn parse(
    State(s): State<Arc<Server>>,
    bearer: Bearer,
    q: Result<Query<ParseQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, ApiError> {
    s.auth().check(&bearer, Need::Read)?;
    let Query(q) = q?;
    let decoded = decode(&s, &q.id, q.layout.as_deref(), q.format.as_deref())?;
    Ok(Json(decoded.json(q.ids.unwrap_or_default())).into_response())
}

/// The server's snowflake layout and its node value.
#[derive(Debug, Serialize, ToSchema)]
pub struct LayoutInfo {
    /// The layout's spec.
    pub spec: String,
    /// Its preset name, if it is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub preset: Option<String>,
    /// This server's node field values.
    pub nodes: std::collections::BTreeMap<String, u64>,
}

/// The layout the server mints and leases for.
#[utoipa::path(get, path = "/v1/layout", tag = "read",
    responses((status = 200, description = "The layout and this server's node values", body = LayoutInfo),
        (status = "4XX", description = "refused", body = ErrorBody),
        (status = 503, description = "the request timed out or the server is stopping; retry", body = ErrorBody)),
    security(("bearer" = [])))]
async fn layout(
    State(s): State<Arc<Server>>,
    bearer: Bearer,
) -> Result<Json<LayoutInfo>, ApiError> {
    s.auth().check(&bearer, Need::Read)?;
    let l = s.ids.snowflake.layout();
    Ok(Json(LayoutInfo {
        spec: l.spec(),
        preset: l.preset_name().map(str::to_string),
        nodes: s.ids.snowflake.nodes().into_iter().collect(),
    }))
}

fn lease_out(s: &Server, l: idmint_core::lease::ClientLease) -> LeaseOut {
    LeaseOut {
        value: l.value,
        token: l.token,
        fence_ms: l.fence_ms,
        ttl_ms: l.ttl_ms,
        nodes: l.nodes.into_iter().collect(),
        layout: s.ids.leases.layout().spec(),
    }
}

/// Leases a node value (fenced, with a TTL).
#[utoipa::path(post, path = "/v1/leases", tag = "lease", request_body = AcquireBody,
    responses((status = 201, description = "The lease: keep `token` secret, renew before `ttl_ms` runs out", body = LeaseOut),
        (status = 409, description = "`no_free_lease`: every value of the range is held", body = ErrorBody),
        (status = "4XX", description = "refused: a bad range or TTL, a bad body, …", body = ErrorBody),
        (status = 503, description = "`store_unavailable`; retry", body = ErrorBody)),
    security(("bearer" = [])))]
async fn lease_acquire(
    State(s): State<Arc<Server>>,
    bearer: Bearer,
    body: Result<Json<AcquireBody>, axum::extract::rejection::JsonRejection>,
) -> Result<(StatusCode, Json<LeaseOut>), ApiError> {
    let caller = s.auth().check(&bearer, Need::Lease)?;
    let Json(b) = body?;
    let holder = b
        .holder
        .clone()
        .unwrap_or_else(|| caller.name().to_string());
    let lease = s
        .ids
        .leases
        .acquire_with(b.range()?, b.ttl_ms, &holder, b.token.as_deref(), b.prefer)
        .await?;
    Ok((StatusCode::CREATED, Json(lease_out(&s, lease))))
}

/// Renews a lease and moves its fence.
#[utoipa::path(post, path = "/v1/leases/{value}/renew", tag = "lease", request_body = RenewBody,
    params(("value" = u64, Path, description = "The leased value")),
    responses((status = 200, description = "The lease, renewed", body = LeaseOut),
        (status = 409, description = "`lease_lost`: not held with this token (expired and taken, or released)", body = ErrorBody),
        (status = "4XX", description = "refused", body = ErrorBody),
        (status = 503, description = "`store_unavailable`; retry", body = ErrorBody)),
    security(("bearer" = [])))]
async fn lease_renew(
    State(s): State<Arc<Server>>,
    bearer: Bearer,
    value: Result<Path<u64>, PathRejection>,
    body: Result<Json<RenewBody>, axum::extract::rejection::JsonRejection>,
) -> Result<Json<LeaseOut>, ApiError> {
    s.auth().check(&bearer, Need::Lease)?;
    let Path(value) = value?;
    let Json(b) = body?;
    let lease = s
        .ids
        .leases
        .renew(value, &b.token, b.ttl_ms, b.fence_ms)
        .await?;
    Ok(Json(lease_out(&s, lease)))
}

/// Gives a value up.
#[utoipa::path(post, path = "/v1/leases/{value}/release", tag = "lease", request_body = ReleaseBody,
    params(("value" = u64, Path, description = "The leased value")),
    responses((status = 200, description = "Released: the value is free for others once its fence has passed", body = Released),
        (status = 409, description = "`lease_lost`: not held with this token", body = ErrorBody),
        (status = "4XX", description = "refused", body = ErrorBody),
        (status = 503, description = "`store_unavailable`; retry", body = ErrorBody)),
    security(("bearer" = [])))]
async fn lease_release(
    State(s): State<Arc<Server>>,
    bearer: Bearer,
    value: Result<Path<u64>, PathRejection>,
    body: Result<Json<ReleaseBody>, axum::extract::rejection::JsonRejection>,
) -> Result<Json<Released>, ApiError> {
    s.auth().check(&bearer, Need::Lease)?;
    let Path(value) = value?;
    let Json(b) = body?;
    s.ids.leases.release(value, &b.token, b.fence_ms).await?;
    Ok(Json(Released { released: true }))
}

/// Every tag of the store.
#[utoipa::path(get, path = "/v1/admin/tags", tag = "admin",
    responses((status = 200, description = "Every tag, by name", body = Vec<TagOut>),
        (status = "4XX", description = "refused", body = ErrorBody),
        (status = 503, description = "`store_unavailable`; retry", body = ErrorBody)),
    security(("bearer" = [])))]
async fn tags_list(
    State(s): State<Arc<Server>>,
    bearer: Bearer,
) -> Result<Json<Vec<TagOut>>, ApiError> {
    s.auth().check(&bearer, Need::Admin)?;
    Ok(Json(
        s.ids
            .store
            .list_tags()
            .await?
            .into_iter()
            .map(TagOut::from)
            .collect(),
    ))
}

/// Creates a tag (201), or answers 200 with the existing one, unchanged.
#[utoipa::path(post, path = "/v1/admin/tags", tag = "admin", request_body = CreateTag,
    responses((status = 201, description = "Created", body = TagOut),
        (status = 200, description = "The tag existed; unchanged", body = TagOut),
        (status = "4XX", description = "refused: a bad tag, start or step, a bad body, …", body = ErrorBody),
        (status = 503, description = "`store_unavailable`; retry", body = ErrorBody)),
    security(("bearer" = [])))]
async fn tags_create(
    State(s): State<Arc<Server>>,
    bearer: Bearer,
    body: Result<Json<CreateTag>, axum::extract::rejection::JsonRejection>,
) -> Result<(StatusCode, Json<TagOut>), ApiError> {
    s.auth().check(&bearer, Need::Admin)?;
    let Json(b) = body?;
    let spec = b.spec()?;
    let created = s.ids.store.create_tag(&spec).await?;
    let info = s
        .ids
        .store
        .tag_info(&b.tag)
        .await?
        .ok_or_else(|| idmint_core::Error::UnknownTag { tag: b.tag.clone() })?;
    let status = if created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, Json(info.into())))
}

/// Tunes a tag: step, description, or the next ID raised.
#[utoipa::path(patch, path = "/v1/admin/tags/{tag}", tag = "admin", request_body = UpdateTag,
    params(("tag" = String, Path, description = "The tag", pattern = "^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$")),
    responses((status = 200, description = "The tag, changed", body = TagOut),
        (status = 404, description = "`unknown_tag`", body = ErrorBody),
        (status = "4XX", description = "refused", body = ErrorBody),
        (status = 503, description = "`store_unavailable`; retry", body = ErrorBody)),
    security(("bearer" = [])))]
async fn tags_update(
    State(s): State<Arc<Server>>,
    bearer: Bearer,
    tag: Result<Path<String>, PathRejection>,
    body: Result<Json<UpdateTag>, axum::extract::rejection::JsonRejection>,
) -> Result<Json<TagOut>, ApiError> {
    s.auth().check(&bearer, Need::Admin)?;
    let tag = name_of(tag)?;
    let Json(b) = body?;
    let update = b.update()?;
    Ok(Json(
        s.ids.segments.update_tag_async(&tag, &update).await?.into(),
    ))
}

/// Every lease the store has a record of.
#[utoipa::path(get, path = "/v1/admin/leases", tag = "admin",
    responses((status = 200, description = "Every lease record, by value", body = Vec<LeaseRow>),
        (status = "4XX", description = "refused", body = ErrorBody),
        (status = 503, description = "`store_unavailable`; retry", body = ErrorBody)),
    security(("bearer" = [])))]
async fn leases_list(
    State(s): State<Arc<Server>>,
    bearer: Bearer,
) -> Result<Json<Vec<LeaseRow>>, ApiError> {
    s.auth().check(&bearer, Need::Admin)?;
    Ok(Json(
        s.ids
            .leases
            .list()
            .await?
            .into_iter()
            .map(LeaseRow::from)
            .collect(),
    ))
}
