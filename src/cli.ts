#!/usr/bin/env bun
/**
 * The process's entry: `bun src/cli.ts <command>` (or `npm run cli -- <command>`, `npm
 * start`, the single binary). It sets the process up, then loads the commands
 * (src/commands.ts lists them): first NODE_ENV (Elysia reads it when it loads), then the
 * memory allocator's settings (src/allocator-settings.ts), which may start the process
 * again with them, before the commands' modules are loaded, so a restart costs a few
 * milliseconds.
 */
import './production-env'
import { ensureAllocatorSettings } from './allocator-settings'

ensureAllocatorSettings()
const { runCommandLine } = await import('./commands')
runCommandLine(process.argv.slice(2))
