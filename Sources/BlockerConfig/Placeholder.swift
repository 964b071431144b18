public enum BlockerConfigPlaceholder {}
