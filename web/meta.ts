/** What the page loads once: the registry, the builder's presets and indicators, the symbols. */
import type { BuilderIndicator, PresetItem, Strategy } from './api'

export interface Meta {
  strategies: Strategy[]
  presets: PresetItem[]
  indicators: BuilderIndicator[]
  symbols: string[]
}
