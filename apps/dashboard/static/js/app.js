// The dashboard's entry: session, hash routes (#/keys, #/keys/<id>, #/usage, #/plan, #/account,
// and the emailed links #/verify/<token>, #/reset/<token>), views.
import { ApiFailure, api, setCsrf } from './api.js'
import { quiet, say } from './dom.js'
import { renderAccount } from './views/account.js'
import { renderAuth, renderReset, verifyFromLink } from './views/auth.js'
import { renderKey } from './views/key.js'
import { renderKeys } from './views/keys.js'
import { renderPlan } from './views/plan.js'
import { renderUsage } from './views/usage.js'

const main = document.getElementById('main')
const nav = document.getElementById('nav')
/** @type {{ account: {email: string, plan: string, emailVerified: boolean} | null, config: {signup: string, rpcUrl: string, email: string} }} */
const state = { account: null, config: { signup: 'invite', rpcUrl: '', email: 'smtp' } }

function setSignedIn(account, csrfToken) {
  state.account = account
  setCsrf(csrfToken)
  nav.hidden = account === null
}

let rendering = 0
let keepStatus = false

// Signed in (by a form or an emailed link): on to the keys, keeping the message just announced.
function onSignedIn(account, csrfToken) {
  setSignedIn(account, csrfToken)
  if (location.hash === '#/keys') void route()
  else {
    // Note: replace, so Back does not return to a used link.
    window.history.replaceState(null, '', '#/keys')
    void route()
  }
}

async function route() {
  const path = location.hash.replace(/^#/, '') || '/keys'
  // Note: each view renders into its own container, swapped in only if no newer route started meanwhile.
  const token = ++rendering
  const view = document.createElement('div')
  const link = /^\/(verify|reset)\/([A-Za-z0-9_-]+)$/.exec(path)
  if (link?.[1] === 'verify') {
    try {
      return await verifyFromLink(link[2], { onSignedIn })
    } catch (error) {
      say(error.message, 'error')
      window.history.replaceState(null, '', '#/keys')
    }
  } else if (link?.[1] === 'reset') {
    renderReset(view, { token: link[2], onSignedIn })
    main.replaceChildren(view)
    return focusMain()
  }
  if (state.account === null) {
    renderAuth(view, { signupOpen: state.config.signup === 'open', emailToLog: state.config.email === 'log', onSignedIn })
    main.replaceChildren(view)
    return focusMain()
  }
  for (const link of nav.querySelectorAll('a')) {
    if (path.startsWith(link.getAttribute('href').slice(1))) link.setAttribute('aria-current', 'page')
    else link.removeAttribute('aria-current')
  }
  const context = {
    state,
    main: view,
    signedIn: (account, csrfToken) => setSignedIn(account, csrfToken),
    signedOut: (message) => signOut(message),
    // Navigates and keeps the message just announced (a hash change otherwise clears it).
    go: (hash) => {
      keepStatus = true
      location.hash = hash
    },
  }
  try {
    const key = /^\/keys\/(\d+)$/.exec(path)
    if (key) await renderKey(view, context, Number(key[1]))
    else if (path === '/usage' || path.startsWith('/usage?')) await renderUsage(view, context)
    else if (path === '/plan') await renderPlan(view, context)
    else if (path === '/account') await renderAccount(view, context)
    else await renderKeys(view, context)
    if (token !== rendering) return
    main.replaceChildren(view)
  } catch (error) {
    if (error instanceof ApiFailure && error.status === 401) {
      setSignedIn(null, '')
      say('Your session ended: sign in again', 'error')
      return route()
    }
    say(error.message, 'error')
  }
  focusMain()
}

// Note: after a view change focus moves to its heading, so screen readers announce the new page.
function focusMain() {
  const heading = main.querySelector('h1')
  if (heading) {
    heading.setAttribute('tabindex', '-1')
    heading.focus({ preventScroll: false })
  }
}

function signOut(message) {
  setSignedIn(null, '')
  say(message)
  window.history.replaceState(null, '', '#/keys')
  void route()
}

document.getElementById('signout').addEventListener('click', async () => {
  try {
    await api('/signout', { method: 'POST' })
  } finally {
    signOut('Signed out')
  }
})
window.addEventListener('hashchange', () => {
  if (!keepStatus) quiet()
  keepStatus = false
  void route()
})

async function start() {
  state.config = await api('/config')
  try {
    const session = await api('/session')
    if (session.account !== null) setSignedIn(session.account, session.csrfToken)
  } catch (error) {
    if (!(error instanceof ApiFailure) || error.status !== 401) say(error.message, 'error')
  }
  await route()
}
void start()
