// The approval page: live list over a WebSocket, answers over POST. Every text goes in through textContent.

const token = new URLSearchParams(location.search).get('token') ?? ''
const PREVIEW_CHARS = 800
const PREVIEW_LINES = 16

const $ = (id) => document.getElementById(id)
const cards = new Map() // requestId -> { ask, el }
let recent = []
let clockOffset = 0 // server clock minus ours, so "waited" counts from the server's ask time

function el(tag, className, text) {
  const node = document.createElement(tag)
  if (className) node.className = className
  if (text !== undefined) node.textContent = text
  return node
}

function waited(ms) {
  const s = Math.max(0, Math.floor(ms / 1000))
  if (s < 60) return `waiting ${s}s`
  const m = Math.floor(s / 60)
  if (m < 60) return `waiting ${m}m ${s % 60}s`
  return `waiting ${Math.floor(m / 60)}h ${m % 60}m`
}

function clock(epochMs) {
  return new Date(epochMs).toLocaleTimeString()
}

/** A long argument text shows its start; the button shows all of it. */
function preview(text) {
  const lines = text.split('\n')
  if (text.length <= PREVIEW_CHARS && lines.length <= PREVIEW_LINES) return undefined
  let cut = lines.slice(0, PREVIEW_LINES).join('\n')
  if (cut.length > PREVIEW_CHARS) cut = cut.slice(0, PREVIEW_CHARS)
  return cut
}

function addCard(ask) {
  if (cards.has(ask.requestId)) return
  const el = $('card').content.firstElementChild.cloneNode(true)
  el.dataset.requestId = ask.requestId
  el.querySelector('.tool').textContent = ask.tool
  el.querySelector('.source').textContent = ask.source ?? '(not given)'
  el.querySelector('.reason').textContent = ask.reason ?? '(not given)'
  el.querySelector('.call').textContent = ask.callId
  const pre = el.querySelector('.arguments')
  const short = preview(ask.argumentsText)
  pre.textContent = short ?? ask.argumentsText
  if (short !== undefined) {
    const button = el.querySelector('.expand')
    button.hidden = false
    button.textContent = `Show all arguments (${ask.argumentsText.length} characters)`
    pre.classList.add('cut')
  }
  el.querySelector('.rule').value = JSON.stringify(ask.ruleDraft, null, 2)
  cards.set(ask.requestId, { ask, el })
  $('pending').append(el)
  tick()
  counts()
}

function removeCard(requestId) {
  const card = cards.get(requestId)
  if (!card) return
  card.el.remove()
  cards.delete(requestId)
  counts()
}

function upsertRecent(ended) {
  recent = [ended, ...recent.filter((item) => item.requestId !== ended.requestId)].slice(0, 50)
  renderRecent()
}

function renderRecent() {
  const list = $('recent')
  list.replaceChildren(
    ...recent.map((item) => {
      const li = el('li', 'ended')
      li.dataset.requestId = item.requestId
      li.dataset.outcome = item.outcome
      li.append(
        el('span', 'outcome', item.outcome.replace('-', ' ')),
        el('span', 'tool', item.tool),
        el('span', 'detail', item.detail),
        el('time', 'when', clock(item.endedAt)),
      )
      return li
    }),
  )
  $('recent-empty').hidden = recent.length > 0
}

function renderGrants(grants) {
  const list = $('grants')
  if (!Array.isArray(grants)) {
    list.replaceChildren(el('li', 'error', `grants cannot be read: ${grants?.error ?? 'unknown error'}`))
    $('grants-empty').hidden = true
    return
  }
  list.replaceChildren(
    ...grants.map((grant) => {
      const li = el('li', 'grant')
      li.dataset.grantId = grant.id
      const revoke = el('button', 'revoke', 'Revoke')
      revoke.type = 'button'
      revoke.dataset.action = 'revoke'
      li.append(
        el('span', 'kind', grant.kind),
        el('span', 'summary', grant.summary),
        el('span', 'by', grant.by ? `by ${grant.by}` : ''),
        el('time', 'when', new Date(grant.created).toLocaleString()),
        revoke,
      )
      return li
    }),
  )
  $('grants-empty').hidden = grants.length > 0
}

function renderStale(stale) {
  $('stale-section').hidden = !stale.length
  $('stale').replaceChildren(
    ...stale.map((item) => {
      const li = el('li', 'stale')
      li.dataset.requestId = item.requestId
      li.append(
        el('span', 'outcome', 'stale'),
        el('span', 'summary', item.summary),
        el('span', 'detail', item.note),
        el('time', 'when', new Date(item.askedAt).toLocaleString()),
      )
      return li
    }),
  )
}

function counts() {
  const n = cards.size
  $('pending-count').textContent = String(n)
  $('pending-empty').hidden = n > 0
  document.title = n ? `(${n}) dshkit approvals` : 'dshkit approvals'
}

function tick() {
  const now = Date.now() + clockOffset
  for (const { ask, el } of cards.values()) el.querySelector('.waited').textContent = waited(now - ask.askedAt)
}

function onMessage(message) {
  if (typeof message.now === 'number') clockOffset = message.now - Date.now()
  switch (message.type) {
    case 'hello':
      for (const id of [...cards.keys()]) removeCard(id)
      for (const ask of message.pending) addCard(ask)
      recent = message.recent
      renderRecent()
      renderGrants(message.grants)
      renderStale(message.stale)
      break
    case 'asked':
      addCard(message.ask)
      break
    case 'ended':
      removeCard(message.ended.requestId)
      upsertRecent(message.ended)
      break
    case 'grants':
      renderGrants(message.grants)
      break
  }
}

function setConnection(state, text) {
  const badge = $('connection')
  badge.dataset.state = state
  badge.textContent = text
}

let retry = 250
function connect() {
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws'
  const socket = new WebSocket(`${scheme}://${location.host}/ws?token=${encodeURIComponent(token)}`)
  socket.onopen = () => {
    retry = 250
    setConnection('live', 'live')
  }
  socket.onmessage = (event) => onMessage(JSON.parse(event.data))
  socket.onclose = () => {
    setConnection('down', 'disconnected; reconnecting…')
    setTimeout(connect, retry)
    retry = Math.min(retry * 2, 5000)
  }
}

async function post(path, body) {
  const response = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-approval-token': token },
    body: JSON.stringify(body),
  })
  const data = await response.json().catch(() => ({}))
  if (!response.ok) throw new Error(data.error ?? `HTTP ${response.status}`)
  return data
}

function showError(cardEl, message) {
  const p = cardEl.querySelector('.error')
  p.hidden = false
  p.textContent = message
}

async function onCardClick(event) {
  const button = event.target.closest('button[data-action]')
  if (!button) return
  const cardEl = button.closest('.card')
  const card = cards.get(cardEl?.dataset.requestId)
  if (!card) return
  const action = button.dataset.action
  if (action === 'expand') {
    const pre = cardEl.querySelector('.arguments')
    const cut = pre.classList.toggle('cut')
    pre.textContent = cut ? preview(card.ask.argumentsText) : card.ask.argumentsText
    button.textContent = cut ? `Show all arguments (${card.ask.argumentsText.length} characters)` : 'Show less'
    return
  }
  if (action === 'rule-edit' || action === 'rule-cancel') {
    cardEl.querySelector('.rule-editor').hidden = action === 'rule-cancel'
    return
  }
  const body = { requestId: card.ask.requestId, argumentsHash: card.ask.argumentsHash, decision: action }
  if (action === 'deny') body.reason = cardEl.querySelector('.deny-reason').value
  if (action === 'always-rule') {
    try {
      body.rule = JSON.parse(cardEl.querySelector('.rule').value)
    } catch (error) {
      return showError(cardEl, `the rule is not valid JSON: ${error.message}`)
    }
  }
  for (const b of cardEl.querySelectorAll('button')) b.disabled = true
  try {
    await post('/api/answer', body)
  } catch (error) {
    showError(cardEl, error.message)
    for (const b of cardEl.querySelectorAll('button')) b.disabled = false
  }
}

async function onGrantClick(event) {
  const button = event.target.closest('button[data-action="revoke"]')
  if (!button) return
  const li = button.closest('[data-grant-id]')
  button.disabled = true
  try {
    await post('/api/grants/revoke', { id: li.dataset.grantId })
  } catch (error) {
    li.append(el('span', 'error', error.message))
    button.disabled = false
  }
}

$('pending').addEventListener('click', onCardClick)
$('grants').addEventListener('click', onGrantClick)
setInterval(tick, 1000)
connect()
