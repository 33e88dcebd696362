/**
 * The base of every strategy's config error. Each strategy keeps its own subclass (DcaConfigError,
 * ClassicDcaConfigError, VncConfigError) because the server and the tests tell them apart with
 * `instanceof` and by `name`; only the `code` + message shape is shared.
 */
export class StrategyConfigError extends Error {
  constructor(
    name: string,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = name;
  }
}

/** A `fail(code, message)` that throws `new ErrorClass(code, message)`: validators read as a list of rules. */
export function failWith(
  ErrorClass: new (code: string, message: string) => Error,
): (code: string, message: string) => never {
  return (code, message) => {
    throw new ErrorClass(code, message);
  };
}
