// Test cases for run.mjs: the HTTP-caching behaviours a private client cache must show, written here from
// RFC 9111 and from what the public http-tests/cache-tests suite checks (its test ids are kept, so results
// can be set beside its published ones). Each case is a list of requests, each with what the origin
// answers and what the answer must be. Dates given as numbers are seconds from the moment of the request.
//
// Vocabulary of a request: request_method, request_headers, request_body, filename, query_arg;
// response_status [code, phrase], response_headers, response_body, disconnect (the origin drops the
// connection); expected_type (cached, not_cached, etag_validated, lm_validated), expected_status,
// expected_response_headers (name | [name, value] | [name, '>', number]), expected_response_headers_missing,
// expected_request_headers, expected_response_text, setup, pause_after.

const fresh = (r = {}) => ({ response_headers: [['Expires', 100000], ['Cache-Control', 'max-age=100000'], ['Last-Modified', 0], ['Date', 0]], ...r })
const stale = (r = {}) => ({ response_headers: [['Expires', -5000], ['Last-Modified', -100000], ['Date', 0]], ...r })
const once = (headers, second, extra = {}) => ({ requests: [{ response_headers: headers, setup: true, pause_after: true, ...extra }, second] })
const cached = { expected_type: 'cached' }
const notCached = { expected_type: 'not_cached' }

const cases = []
const add = (id, test) => cases.push({ id, ...test })

// Freshness from Cache-Control (RFC 9111 §5.2.2.1, §4.2.1)
add('freshness-max-age', once([['Cache-Control', 'max-age=3600']], cached))
add('freshness-max-age-0', once([['Cache-Control', 'max-age=0']], notCached))
add('freshness-max-age-0-expires', once([['Cache-Control', 'max-age=0'], ['Expires', 3600]], notCached))
add('freshness-max-age-expires', once([['Cache-Control', 'max-age=3600'], ['Expires', -3600]], cached))
add('freshness-max-age-negative', once([['Cache-Control', 'max-age=-3600']], notCached))
add('freshness-max-age-age', once([['Cache-Control', 'max-age=3600'], ['Age', '12000']], notCached))
add('freshness-max-age-max', once([['Cache-Control', 'max-age=2147483648']], cached))
add('freshness-max-age-max-plus', once([['Cache-Control', 'max-age=2147483649']], cached))
add('freshness-max-age-stale', once([['Cache-Control', 'max-age=1']], notCached))
add('freshness-max-age-s-maxage-private', once([['Cache-Control', 'max-age=1, s-maxage=3600']], notCached))
add('freshness-max-age-ignore-quoted', once([['Cache-Control', 'extension="max-age=3600", max-age=1']], notCached))
add('freshness-max-age-ignore-quoted-rev', once([['Cache-Control', 'max-age=1, extension="max-age=3600"']], notCached))
add('freshness-max-age-leading-zero', once([['Cache-Control', 'max-age=003600']], cached))
add('freshness-max-age-single-quoted', once([['Cache-Control', "max-age='3600'"]], notCached))

// Freshness from Expires (RFC 9111 §5.3)
add('freshness-expires-future', once([['Expires', 3600], ['Date', 0]], cached))
add('freshness-expires-past', once([['Expires', -3600], ['Date', 0]], notCached))
add('freshness-expires-present', once([['Expires', 0], ['Date', 0]], notCached))
add('freshness-expires-invalid', once([['Expires', '0'], ['Date', 0]], notCached))
add('freshness-expires-invalid-2-digit-year', once([['Expires', 'Thu, 18 Aug 50 02:01:18 GMT'], ['Date', 0]], notCached))
add('freshness-expires-invalid-no-comma', once([['Expires', 'Thu 18 Aug 2050 02:01:18 GMT'], ['Date', 0]], notCached))
add('freshness-expires-invalid-date-dashes', once([['Expires', 'Thu, 18-Aug-2050 02:01:18 GMT'], ['Date', 0]], notCached))
add('freshness-expires-invalid-1-digit-hour', once([['Expires', 'Thu, 18 Aug 2050 2:01:18 GMT'], ['Date', 0]], notCached))
add('freshness-expires-invalid-multiple-lines', once([['Expires', 3600], ['Expires', 3600], ['Date', 0]], notCached))
add('freshness-expires-age-slow-date', once([['Expires', 10], ['Date', -10], ['Age', '30']], notCached))

// Age (RFC 9111 §5.1): the first member of a list
add('age-parse-suffix', once([['Date', 0], ['Cache-Control', 'max-age=3600'], ['Age', '7200,0']], notCached))
add('age-parse-dup-old', once([['Date', 0], ['Cache-Control', 'max-age=3600'], ['Age', '7200, 7200']], notCached))
add('age-parse-list-first', once([['Date', 0], ['Cache-Control', 'max-age=3600'], ['Age', '60, 30']], cached))

// Response directives (RFC 9111 §5.2.2)
add('cc-resp-no-store', once([['Cache-Control', 'no-store']], notCached))
add('cc-resp-no-store-case-insensitive', once([['Cache-Control', 'No-Store']], notCached))
add('cc-resp-no-store-fresh', once([['Cache-Control', 'max-age=10000, no-store']], notCached))
add('cc-resp-no-cache', once([['Cache-Control', 'no-cache']], notCached))
add('cc-resp-no-cache-case-insensitive', once([['Cache-Control', 'No-Cache']], notCached))
add('cc-resp-no-cache-fresh', once([['Cache-Control', 'max-age=10000, no-cache']], notCached))
add('cc-resp-no-cache-revalidate', once([['Cache-Control', 'no-cache'], ['ETag', '"abcd"']], { expected_type: 'etag_validated' }))
add('cc-resp-must-revalidate-stale', once([['Cache-Control', 'must-revalidate'], ['Expires', -10], ['Date', 0]], notCached))

// A stale copy never stands in for a dropped connection when the response forbade it (§4.2.4, §5.2.2)
for (const [id, cc] of [['stale-close-must-revalidate', 'max-age=1, must-revalidate'], ['stale-close-no-cache', 'no-cache']]) {
  add(id, { requests: [{ response_headers: [['Cache-Control', cc], ['ETag', '"a"']], setup: true, pause_after: true }, { disconnect: true, expected_status: 0 }] })
}

// Heuristic freshness only for heuristically cacheable statuses (RFC 9111 §4.2.2)
for (const [code, phrase] of [[201, 'Created'], [202, 'Accepted']]) {
  add(`heuristic-${code}-not_cached`, once([['Last-Modified', -100000], ['Date', 0]], { ...notCached, response_status: [code, phrase] }, { response_status: [code, phrase] }))
}

// A stale stored response of any status is not reused (status-*-stale)
for (const [code, phrase, body] of [[200, 'OK'], [203, 'Non-Authoritative Information'], [204, 'No Content', null], [299, 'Whatever'],
  [400, 'Bad Request'], [404, 'Not Found'], [410, 'Gone'], [499, 'Whatever'], [500, 'Internal Server Error'],
  [502, 'Bad Gateway'], [503, 'Service Unavailable'], [504, 'Gateway Timeout'], [599, 'Whatever']]) {
  const answer = { response_status: [code, phrase], response_body: body === undefined ? `status ${code}` : body }
  add(`status-${code}-stale`, { requests: [stale({ ...answer, setup: true }), { ...notCached, ...answer }] })
}

// Vary (RFC 9111 §4.1)
const varyResponse = (vary) => [['Expires', 5000], ['Last-Modified', -3000], ['Date', 0], ...vary.map((v) => ['Vary', v])]
const varyCase = (first, vary, second) => ({ requests: [{ request_headers: first, response_headers: varyResponse(vary), setup: true }, { request_headers: second, ...notCached }] })
add('vary-omit', varyCase([['Foo', '1']], ['Foo'], []))
add('vary-no-match', varyCase([['Foo', '1']], ['Foo'], [['Foo', '2']]))
add('vary-2-no-match', varyCase([['Foo', '1'], ['Bar', 'abc']], ['Foo, Bar'], [['Foo', '2'], ['Bar', 'abc']]))
add('vary-2-match-omit', varyCase([['Foo', '1']], ['Foo, Bar'], []))
add('vary-3-no-match', varyCase([['Foo', '1'], ['Bar', 'abc'], ['Baz', '789']], ['Foo, Bar, Baz'], [['Foo', '2'], ['Bar', 'abc'], ['Baz', '789']]))
add('vary-3-order', varyCase([['Foo', '1'], ['Bar', 'abc4'], ['Baz', '789']], ['Foo, Bar, Baz'], [['Foo', '1'], ['Bar', 'abc'], ['Baz', '789']]))
add('vary-star', varyCase([['Foo', '1'], ['Baz', '789']], ['*'], [['Baz', '789']]))
for (const [id, lines] of [['vary-syntax-star', ['*']], ['vary-syntax-star-star', ['*, *']], ['vary-syntax-star-star-lines', ['*', '*']],
  ['vary-syntax-empty-star', [', *']], ['vary-syntax-empty-star-lines', ['', '*']], ['vary-syntax-star-foo', ['*, Foo']], ['vary-syntax-foo-star', ['Foo, *']]]) {
  add(id, varyCase([['Foo', '1'], ['Baz', '789']], lines, [['Foo', '1'], ['Baz', '789']]))
}
add('vary-match', { requests: [{ request_headers: [['Foo', '1']], response_headers: varyResponse(['Foo']), setup: true }, { request_headers: [['Foo', '1']], ...cached }] })
add('vary-invalidate', {
  requests: [
    { request_headers: [['Foo', '1']], response_headers: varyResponse(['Foo']), response_body: 'foo_1', setup: true },
    { request_headers: [['Foo', '2']], response_headers: varyResponse(['Foo']), response_body: 'foo_2', ...notCached, setup: true },
    { request_headers: [['Foo', '1']], response_body: 'foo_1', ...cached }
  ]
})

// Invalidation after unsafe methods (RFC 9111 §4.4)
for (const method of ['POST', 'PUT', 'DELETE', 'M-SEARCH']) {
  add(`invalidate-${method}`, { requests: [fresh({ setup: true }), { request_method: method, request_body: 'abc', setup: true }, notCached] })
  add(`invalidate-${method}-location`, {
    requests: [fresh({ filename: 'location_target', setup: true }),
      { request_method: 'POST', request_body: 'abc', response_headers: [['Location', 'location_target'], ['Content-Location', 'content_location_target']], setup: true },
      fresh({ filename: 'location_target', ...notCached })]
  })
  add(`invalidate-${method}-cl`, {
    requests: [fresh({ filename: 'content_location_target', setup: true }),
      { request_method: method, request_body: 'abc', response_headers: [['Location', 'location_target'], ['Content-Location', 'content_location_target']], setup: true },
      fresh({ filename: 'content_location_target', ...notCached })]
  })
}

// Updating stored headers from a 304 (RFC 9111 §3.2, §4.3.4)
for (const [header, a, b] of [['Test-Header', 'A', 'B'], ['X-Test-Header', 'A', 'B'], ['Content-Foo', 'A', 'B'], ['X-Content-Foo', 'A', 'B'],
  ['Content-Type', 'text/plain', 'text/plain;charset=utf-8'], ['Cache-Control', 'max-age=1', 'max-age=3600']]) {
  for (const [kind, validator, value] of [['lm', 'Last-Modified', -86400], ['etag', 'ETag', `"${header}-etag-1"`]]) {
    const make = (v, lifetime) => [header === 'Cache-Control' ? ['A', 'b'] : ['Cache-Control', `max-age=${lifetime}`], ['Date', 0], [validator, value], [header, v]]
    const validated = `${kind}_validated`
    add(`304-${kind}-update-response-${header}`, { requests: [{ response_headers: make(a, 1), setup: true, pause_after: true }, { response_headers: make(b, 3600), expected_type: validated, expected_response_headers: [[header, b]] }] })
    add(`304-${kind}-update-stored-${header}`, {
      requests: [{ response_headers: make(a, 1), setup: true, pause_after: true }, { response_headers: make(b, 3600), expected_type: validated, setup: true, pause_after: true },
        { ...cached, expected_response_headers: [[header, b]] }]
    })
  }
}
add('304-lm-use-stored-Test-Header', {
  requests: [{ response_headers: [['Cache-Control', 'max-age=1'], ['Last-Modified', -86400], ['Date', 0], ['Test-Header', 'A']], setup: true, pause_after: true },
    { response_headers: [['Cache-Control', 'max-age=3600'], ['Last-Modified', -86400], ['Date', 0]], expected_type: 'lm_validated', expected_response_headers: [['Test-Header', 'A']] }]
})

// Partial content: a stored part never answers a whole request (RFC 9111 §3.3)
add('partial-not-whole', {
  requests: [{ request_headers: [['Range', 'bytes=-5']], response_status: [206, 'Partial Content'], response_headers: [['Cache-Control', 'max-age=3600'], ['Content-Range', 'bytes 4-9/10']], response_body: '01234', setup: true },
    { ...notCached, response_body: '0123456789' }]
})

// Constructing answers from the cache (RFC 9111 §4, §5.1)
add('other-age-gen', once([['Expires', 30 * 24 * 60 * 60], ['Date', 0]], { ...cached, expected_response_headers: [['Age', '>', 2]] }))
add('other-age-update-expires', once([['Expires', 30 * 24 * 60 * 60], ['Date', 0], ['Age', '30']], { ...cached, expected_response_headers: [['Age', '>', 32]] }))
add('other-age-update-max-age', once([['Cache-Control', 'max-age=600'], ['Date', 0], ['Age', '30']], { ...cached, expected_response_headers: [['Age', '>', 32]] }))
add('other-date-update', once([['Expires', 30 * 24 * 60 * 60], ['Date', 0]], { ...cached, expected_response_headers: [['Date', 0]] }))
add('query-args-different', { requests: [fresh({ query_arg: 'test=1' }), { query_arg: 'test=2', ...notCached }] })

// Conditional requests for a stale stored response (RFC 9111 §4.3.1)
add('conditional-etag-stale', once([['Cache-Control', 'max-age=1'], ['ETag', '"abcdef"']], { expected_type: 'etag_validated' }))
add('conditional-lm-stale', once([['Cache-Control', 'max-age=1'], ['Last-Modified', -10000], ['Date', 0]], { expected_type: 'lm_validated' }))

export default cases
