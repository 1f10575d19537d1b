/** `import path from './x.ttf' with { type: 'file' }`: Bun gives the file's path (inside the single binary, its /$bunfs path). */
declare module '*.ttf' {
  const path: string
  export default path
}
