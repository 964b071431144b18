public enum BlockerCLIPlaceholder {}
