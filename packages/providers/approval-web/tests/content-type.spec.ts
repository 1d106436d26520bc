import { afterEach, expect, test } from 'vitest'
import { cleanup } from '@dshkit/testing'
import { bootWeb } from './helpers.js'

afterEach(cleanup)

// Real requests to the real server; a revoke of an unknown grant answers 404 once the body was taken as JSON.
const json = [
  'application/json',
  'application/json; charset=utf-8',
  'Application/JSON',
  'application/json;charset=UTF-8',
  'application/json ; charset="utf-8"',
  'application/json; v=1',
]
const notJson = [
  'application/json-patch+json',
  'application/jsonx',
  'application/json+x',
  'application/json/x',
  'application/json.x',
  'application/json, text/plain',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'text/json',
  'application/x-json',
  'text/plain',
  'multipart/form-data; boundary=application/json',
  ' application/jso n',
]

test('only application/json (with parameters, UTF-8) is taken as JSON; any other content-type is 415, naming what came', async () => {
  const web = await bootWeb()
  const post = (type: string | undefined) =>
    fetch(`${web.origin}/api/grants/revoke`, {
      method: 'POST',
      headers: { 'x-approval-token': web.token, origin: web.origin, ...(type !== undefined && { 'content-type': type }) },
      body: JSON.stringify({ id: 'g_unknown' }),
    })
  for (const type of json) {
    const res = await post(type)
    expect(res.status, type).toBe(404)
  }
  for (const type of notJson) {
    const res = await post(type)
    expect(res.status, type).toBe(415)
    const { error } = (await res.json()) as { error: string }
    expect(error, type).toMatch(/^approval-web: send the answer as application\/json \(got /)
  }
  const long = await post(`application/json-patch+json; x=${'a'.repeat(10_000)}`)
  expect(long.status).toBe(415)
  expect(((await long.json()) as { error: string }).error.length).toBeLessThan(200)
})
