/**
 * The class of a start form's help text that is not an input's description (the presets' line, the
 * keyboard hint): hidden with the descriptions where the form hides its help (StartForm.tsx `HELP_CSS`).
 */
export const HELP_CLASS = 'bytx-form-help';
