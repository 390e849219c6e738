/** The four roles as the start screen and the top bar present them. */
import type { Role } from '../../runtime/types'
import type { IconName } from './icons'

export interface RoleInfo {
  role: Role
  title: string
  icon: IconName
  summary: string
  usesModel: boolean
}

export const ROLE_INFO: Record<Role, RoleInfo> = {
  decomposer: {
    role: 'decomposer',
    title: 'Decomposer',
    icon: 'scissors',
    summary: 'Splits each goal into 2 to 6 smaller, independent subgoals, with a short rationale.',
    usesModel: true,
  },
  scorer: {
    role: 'scorer',
    title: 'Scorer',
    icon: 'scale',
    summary:
      'Rates competing splits from 0 to 1, accepts the winner, and decides which subgoals are atomic.',
    usesModel: true,
  },
  executor: {
    role: 'executor',
    title: 'Executor',
    icon: 'gear',
    summary: 'Claims atomic tasks it can do (text, code, API lookups) and publishes the results.',
    usesModel: true,
  },
  observer: {
    role: 'observer',
    title: 'Observer',
    icon: 'eye',
    summary: 'Watch only: makes no LLM calls, publishes nothing, and shows the whole plan live.',
    usesModel: false,
  },
}
