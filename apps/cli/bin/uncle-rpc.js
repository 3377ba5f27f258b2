#!/usr/bin/env node
// The one command-line entry point. The sources are TypeScript run through tsx, so a
// clone works after `npm ci` with no build step.
import { register } from 'tsx/esm/api'

register()
await import('../src/main.ts')
