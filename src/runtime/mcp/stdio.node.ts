/**
 * An agent's stdio MCP servers (--mcp "COMMAND ARGS…"): each a child process
 * of the agent, started with the agent's environment and its own stderr
 * kept out of the terminal unless DEBUG asks; `close()` on its connection
 * kills it, and so does the agent's exit (its stdin closes).
 */
import { Experimental_StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio'
import type { StdioTransportFactory } from './connection'

export const nodeStdio: StdioTransportFactory = (command, args) =>
  new Experimental_StdioMCPTransport({
    command,
    args,
    // a server's log lines are its own business: shown only when debugging
    stderr: process.env.DEBUG ? 'inherit' : 'ignore',
  })
