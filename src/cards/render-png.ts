/** SVG → PNG with resvg, on libuv's thread pool (renderAsync), so the request loop stays free. */
import { renderAsync } from '@resvg/resvg-js'
import { CARD_WIDTH } from './card-svg'
import { cardFontFiles, LATIN_FAMILY } from './fonts'
import type { Lang } from './labels'

export async function renderPng(svg: string, lang: Lang): Promise<Uint8Array> {
  const image = await renderAsync(svg, {
    fitTo: { mode: 'width', value: CARD_WIDTH },
    font: { loadSystemFonts: false, fontFiles: cardFontFiles(lang), defaultFontFamily: LATIN_FAMILY },
  })
  return image.asPng()
}
