/** An agent's MCP options (issue 57): parsed and checked before anything starts. */
import { describe, expect, it } from 'vitest'
import type { McpServerStatus } from '../runtime/mcp/types'
import {
  consentFrom,
  parseAllowTool,
  parseMcpCommand,
  parseMcpUrl,
  splitCommand,
} from './agent-mcp-options'
import { parseAgentArgs, UsageError } from './agent-options'
import { refusalLine, serverLines } from './agent-mcp'
import { memberInviteLink } from '../protocol/invite'
import { deriveMemberKey, newMemberSeed } from '../protocol/member-key'
import { deriveRoomKey, newRoomSecret } from '../protocol/room-key'

const SEED = newMemberSeed()
const INVITE = memberInviteLink('http://127.0.0.1:8080', {
  room: deriveRoomKey('picnic', newRoomSecret()),
  owner: deriveMemberKey(SEED).id,
  me: SEED,
})

describe('--mcp, --mcp-url, --allow-tool', () => {
  it('splits a command as a shell splits plain words and quotes, with an optional group name', () => {
    expect(splitCommand(`npx -y "@scope/server" '/srv/my notes' a\\ b`)).toEqual([
      'npx',
      '-y',
      '@scope/server',
      '/srv/my notes',
      'a b',
    ])
    expect(parseMcpCommand('files=npx -y @modelcontextprotocol/server-filesystem /srv')).toEqual({
      kind: 'stdio',
      name: 'files',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv'],
    })
    expect(parseMcpCommand('node server.js --x=1')).toEqual({
      kind: 'stdio',
      command: 'node',
      args: ['server.js', '--x=1'],
    })
    expect(() => parseMcpCommand('   ')).toThrow(UsageError)
    expect(() => parseMcpCommand('"unclosed')).toThrow(/unclosed/)
    expect(() => parseMcpCommand('Files=npx x')).not.toThrow() // not a name: part of the command
  })

  it('takes a URL with an optional group name', () => {
    expect(parseMcpUrl('memory=http://127.0.0.1:3001/mcp')).toEqual({
      kind: 'http',
      name: 'memory',
      url: 'http://127.0.0.1:3001/mcp',
    })
    expect(parseMcpUrl('https://mcp.example.org/mcp?key=x')).toEqual({
      kind: 'http',
      url: 'https://mcp.example.org/mcp?key=x',
    })
    expect(() => parseMcpUrl('ftp://x')).toThrow(/http\(s\)/)
  })

  it('turns tools on by name, or all of a group, for whom it says', () => {
    expect(parseAllowTool('files/read_text_file')).toEqual({
      group: 'files',
      tool: 'read_text_file',
    })
    expect(parseAllowTool('files/*=anyone')).toEqual({
      group: 'files',
      tool: '*',
      access: 'anyone',
    })
    expect(() => parseAllowTool('files')).toThrow(/GROUP\/TOOL/)
    expect(() => parseAllowTool('files/x=everyone')).toThrow(/GROUP\/TOOL/)
  })

  it('gives a read-only tool to anyone and a writing one to its person, unless told', () => {
    const servers = [
      {
        group: 'files',
        tools: [
          {
            name: 'read_text_file',
            readOnly: true,
            destructive: false,
            openWorld: false,
            access: 'off',
          },
          {
            name: 'write_file',
            readOnly: false,
            destructive: true,
            openWorld: false,
            access: 'off',
          },
        ],
      },
    ] as unknown as McpServerStatus[]
    expect(consentFrom([{ group: 'files', tool: '*' }], servers)).toEqual({
      files: { read_text_file: 'anyone', write_file: 'own' },
    })
    expect(
      consentFrom([{ group: 'files', tool: 'write_file', access: 'anyone' }], servers),
    ).toEqual({
      files: { write_file: 'anyone' },
    })
    expect(() => consentFrom([{ group: 'web', tool: '*' }], servers)).toThrow(
      /no server is named web/,
    )
    expect(() => consentFrom([{ group: 'files', tool: 'rm' }], servers)).toThrow(/has no such tool/)
  })

  it('belongs to executors, and --allow-tool needs a server', () => {
    const run = parseAgentArgs([
      '--invite',
      INVITE,
      '--mcp',
      'files=node s.js',
      '--allow-tool',
      'files/*',
    ])
    expect(run.kind === 'run' && run.options.mcp).toEqual({
      servers: [{ kind: 'stdio', name: 'files', command: 'node', args: ['s.js'] }],
      allow: [{ group: 'files', tool: '*' }],
    })
    expect(() =>
      parseAgentArgs(['--invite', INVITE, '--role', 'scorer', '--mcp', 'node s.js']),
    ).toThrow(/--mcp is for executors/)
    expect(() => parseAgentArgs(['--invite', INVITE, '--allow-tool', 'files/*'])).toThrow(
      /give the server with --mcp or --mcp-url/,
    )
  })

  it('prints what a server offers to whom, and how a refusal could be lifted', () => {
    const server = {
      group: 'files',
      kind: 'stdio',
      target: 'node fs.js /srv',
      state: 'ready',
      server: 'secure-filesystem-server 0.2.0',
      tools: [
        {
          name: 'read_text_file',
          readOnly: true,
          destructive: false,
          openWorld: false,
          description: '',
          access: 'anyone',
        },
        {
          name: 'write_file',
          readOnly: false,
          destructive: true,
          openWorld: false,
          description: '',
          access: 'own',
        },
        {
          name: 'move_file',
          readOnly: false,
          destructive: false,
          openWorld: false,
          description: '',
          access: 'off',
        },
      ],
    } as McpServerStatus
    expect(serverLines(server)).toEqual([
      '  MCP files (secure-filesystem-server 0.2.0; node fs.js /srv): 3 tools',
      "    for any member's goals: read_text_file (read-only)",
      "    for your own goals only (others' are refused): write_file (may delete or overwrite)",
      '    off: move_file (writes) (--allow-tool files/NAME turns one on, files/* all)',
    ])
    expect(
      refusalLine(
        "refused a tool call for “x”: files/write_file is kept for its person's own goals, and this is another member's goal",
      ),
    ).toMatch(/\(--allow-tool files\/write_file=anyone lets any member's goal use it\)$/)
  })
})
