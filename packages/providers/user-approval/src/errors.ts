/** The grants file cannot be read, parsed or holds something that is not a grant. */
export class GrantsFileError extends Error {
  override name = 'GrantsFileError'
  constructor(
    readonly file: string,
    problem: string,
  ) {
    super(`grants file ${file}: ${problem}`)
  }
}
