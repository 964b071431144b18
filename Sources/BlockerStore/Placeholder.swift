public enum BlockerStorePlaceholder {}
