/** The four roles as the start screen and the top bar present them. */
import type { Role } from '../../runtime/types'

export interface RoleInfo {
  role: Role
  title: string
  icon: string
  summary: string
  usesModel: boolean
}

export const ROLE_INFO: Record<Role, RoleInfo> = {
  decomposer: {
    role: 'decomposer',
    title: 'Decomposer',
    icon: '✂',
    summary: 'Splits each goal into 2 to 6 smaller, independent subgoals, with a short rationale.',
    usesModel: true,
  },
  scorer: {
    role: 'scorer',
    title: 'Scorer',
    icon: '⚖',
    summary:
      'Rates competing splits from 0 to 1, accepts the winner, and decides which subgoals are atomic.',
    usesModel: true,
  },
  executor: {
    role: 'executor',
    title: 'Executor',
    icon: '⚙',
    summary: 'Claims atomic tasks it can do (text, code, API lookups) and publishes the results.',
    usesModel: true,
  },
  observer: {
    role: 'observer',
    title: 'Observer',
    icon: '◉',
    summary: 'Watch only: makes no LLM calls, publishes nothing, and shows the whole plan live.',
    usesModel: false,
  },
}
