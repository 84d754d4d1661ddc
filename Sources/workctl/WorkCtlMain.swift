import ArgumentParser
import WorkFeedCtl

/// The entry point: every command lives in WorkFeedCtl, where tests run them too.
@main
extension WorkCtl {}
