// The pages' one way to ask the server (the JSON API under /api, and static JSON files).
// It never throws: every outcome is an answer the page can show.

// Asks ``path``: a GET, or with a ``body`` a POST of it as JSON; ``method`` names another
// (a DELETE, or a POST with no body). Answers {ok, status, data}: ``data`` is the JSON the
// server sent; when it sent none, {detail: "HTTP <status>"}; when it could not be reached
// (status 0), {detail: "the server cannot be reached: ..."}. A refusal's reason is
// ``data.detail``, the server's own words.
export async function api(path, body, method) {
  const opts = { method: method || (body === undefined ? "GET" : "POST") };
  if (body !== undefined) {
    opts.headers = { "Content-Type": "application/json" };
    opts.body = JSON.stringify(body);
  }
  let res;
  try { res = await fetch(path, opts); } catch (err) { return { ok: false, status: 0, data: { detail: "the server cannot be reached: " + err.message } }; }
  let data = {};
  try { data = await res.json(); } catch (_) { data = { detail: `HTTP ${res.status}` }; }
  return { ok: res.ok, status: res.status, data };
}
