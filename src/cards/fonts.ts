/**
 * The card fonts: Inter (Latin, OFL-1.1) and Noto Sans KR (Korean, OFL-1.1), taken from
 * the installed @expo-google-fonts packages. The `type: 'file'` imports make
 * `bun build --compile` embed the files in the single binary; resvg is native code and
 * reads paths only (it cannot read /$bunfs, and a `fontBuffers` option is silently
 * ignored, falling back to system fonts), so embedded files are copied once to a
 * temp folder and resvg gets those paths. System fonts are never loaded.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import interBold from '@expo-google-fonts/inter/700Bold/Inter_700Bold.ttf' with { type: 'file' }
import interRegular from '@expo-google-fonts/inter/400Regular/Inter_400Regular.ttf' with { type: 'file' }
import notoKrBold from '@expo-google-fonts/noto-sans-kr/700Bold/NotoSansKR_700Bold.ttf' with { type: 'file' }
import notoKrRegular from '@expo-google-fonts/noto-sans-kr/400Regular/NotoSansKR_400Regular.ttf' with { type: 'file' }

export type CardLang = 'en' | 'ko'

export const LATIN_FAMILY = 'Inter'
export const KOREAN_FAMILY = 'Noto Sans KR'

/** A path native code can open: files inside the single binary are copied out first. */
function nativePath(path: string): string {
  if (!path.startsWith('/$bunfs')) return path
  const bytes = readFileSync(path)
  const digest = createHash('sha256').update(bytes).digest('hex').slice(0, 12)
  const dir = join(tmpdir(), `perpsim-fonts-${digest}`)
  const out = join(dir, basename(path))
  if (!existsSync(out)) {
    mkdirSync(dir, { recursive: true })
    // written under a temporary name and renamed: a concurrent start never reads half a font
    const partial = `${out}.${process.pid}.partial`
    writeFileSync(partial, bytes)
    renameSync(partial, out)
  }
  return out
}

let resolved: Record<CardLang, string[]> | null = null

/** Font files for a card in `lang`: Inter for both; the Korean card adds Noto Sans KR. */
export function cardFontFiles(lang: CardLang): string[] {
  resolved ??= (() => {
    const latin = [interRegular, interBold].map(nativePath)
    const korean = [notoKrRegular, notoKrBold].map(nativePath)
    return { en: latin, ko: [...latin, ...korean] }
  })()
  return resolved[lang]
}

