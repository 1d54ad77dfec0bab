import Foundation
import Testing
import Trove

@testable import TroveServer

/// `--memory-budget`, `TROVE_MEMORY_BUDGET` and the config file's `pipeline.decodeMemoryBudget`: one
/// setting, its units, `none`, its errors, and the default from a container's memory limit.
@Suite struct MemoryBudgetSettingTests {
    @Test func flagEnvironmentAndFileSetTheSameBudget() throws {
        #expect(
            try ServerConfiguration(arguments: ["--memory-budget", "256M"]).pipeline.decodeMemoryBudget == 256 << 20)
        #expect(
            try ServerConfiguration(environment: ["TROVE_MEMORY_BUDGET": "2G"]).pipeline.decodeMemoryBudget == 2 << 30)
        #expect(try ServerConfiguration(arguments: ["--memory-budget", "none"]).pipeline.decodeMemoryBudget == nil)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("trove-budget-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("serve.json")
        try Data(#"{"pipeline": {"decodeMemoryBudget": 1048576}}"#.utf8).write(to: file)
        #expect(try ServerConfiguration(configFile: file).pipeline.decodeMemoryBudget == 1 << 20)
        // The flag wins over the file.
        let both = try ServerConfiguration(configFile: file, arguments: ["--memory-budget", "3M"])
        #expect(both.pipeline.decodeMemoryBudget == 3 << 20)
    }

    @Test func aBadBudgetIsNamedWithHowItWasGiven() {
        #expect(
            throws: ServerConfigurationError(
                "--memory-budget lots is not a byte count; give one like 256M or 2G, or none")
        ) {
            try ServerConfiguration(arguments: ["--memory-budget", "lots"])
        }
        #expect(
            throws: ServerConfigurationError(
                "TROVE_MEMORY_BUDGET=0 is not a byte count; give one like 256M or 2G, or none")
        ) {
            try ServerConfiguration(environment: ["TROVE_MEMORY_BUDGET": "0"])
        }
    }

    @Test func theDefaultIsHalfTheContainersLimitAndNoneWithout() {
        #expect(ServerConfiguration.defaultDecodeMemoryBudget(containerLimit: 1 << 30) == 512 << 20)
        #expect(ServerConfiguration.defaultDecodeMemoryBudget(containerLimit: nil) == nil)
    }

    @Test func helpListsTheSetting() {
        let help = ServerSetting.helpText
        #expect(help.contains("--memory-budget"))
        #expect(help.contains("TROVE_MEMORY_BUDGET"))
    }
}
