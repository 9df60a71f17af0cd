"""Names the command line needs before anything heavy is imported (`ptoisa --help` loads neither NumPy nor
xDSL). tests/test_cli_core.py checks they agree with the target registry."""

TARGET_NAMES = ("a2a3", "a5", "cpu")
DEFAULT_TARGET_NAME = "a2a3"
ENV_VAR = "PTOISA_TARGET"
