// Doors, per vanilla DoorBlock: placing sets both halves (facing = the player's horizontal
// facing, hinge from neighbouring doors / solid blocks), using a wooden door toggles `open` on
// both halves, breaking one half removes the other. Closed doors are solid for mobs
// (_common.isSolidState).
'use strict'

const { stateId, stateProps } = require('./_common')

const STEP = { north: [0, -1], south: [0, 1], west: [-1, 0], east: [1, 0] }
const CCW = { north: 'west', west: 'south', south: 'east', east: 'north' }
const CW = { north: 'east', east: 'south', south: 'west', west: 'north' }
const BY_YAW = ['south', 'west', 'north', 'east'] // vanilla yaw 0 = south, 90 = west

module.exports.server = function (serv) {
  const { registry } = serv
  const doors = Object.values(registry.blocksByName).filter(b => b.name.endsWith('_door'))
  const isDoor = (b) => b && b.name && b.name.endsWith('_door')
  const isSolid = (b) => b && b.boundingBox === 'block' && !isDoor(b)
  const offset = (pos, dir) => pos.offset(STEP[dir][0], 0, STEP[dir][1])
  const setState = (world, pos, name, props) => serv.setBlock(world, pos, stateId(registry, name, props))

  for (const door of doors) {
    if (!registry.itemsByName[door.name]) continue
    serv.onItemPlace(door.name, async ({ player, placedPosition }) => {
      const world = player.world
      const below = await world.getBlock(placedPosition.offset(0, -1, 0))
      const above = await world.getBlock(placedPosition.offset(0, 1, 0))
      if (!isSolid(below) || (above.type !== 0 && above.boundingBox !== 'empty')) return { id: -1, data: 0 }
      const yaw = ((player.mcbotYaw ?? 0) % 360 + 360) % 360
      const facing = BY_YAW[Math.floor(yaw / 90 + 0.5) & 3]
      const hinge = await chooseHinge(world, placedPosition, facing, door.name)
      const props = { facing, hinge, open: 'false', powered: 'false' }
      await setState(world, placedPosition.offset(0, 1, 0), door.name, { ...props, half: 'upper' })
      const lower = stateId(registry, door.name, { ...props, half: 'lower' })
      return { id: door.id, data: lower - door.minStateId }
    })
    if (door.name === 'iron_door') continue // only redstone opens iron doors
    serv.onBlockInteraction(door.name, async ({ block, player }) => {
      const world = player.world
      const props = stateProps(registry, block.stateId)
      const open = props.open === 'true' ? 'false' : 'true'
      const other = block.position.offset(0, props.half === 'lower' ? 1 : -1, 0)
      await setState(world, block.position, door.name, { ...props, open })
      const otherBlock = await world.getBlock(other)
      if (otherBlock.name === door.name) await setState(world, other, door.name, { ...stateProps(registry, otherBlock.stateId), open })
      return true
    })
  }

  async function chooseHinge (world, pos, facing, name) {
    const leftPos = offset(pos, CCW[facing])
    const rightPos = offset(pos, CW[facing])
    const solidCount = async (p) => (isSolid(await world.getBlock(p)) ? 1 : 0) + (isSolid(await world.getBlock(p.offset(0, 1, 0))) ? 1 : 0)
    const lowerDoorAt = async (p) => {
      const b = await world.getBlock(p)
      return b.name === name && stateProps(registry, b.stateId).half === 'lower'
    }
    const diff = (await solidCount(leftPos)) - (await solidCount(rightPos))
    const leftDoor = await lowerDoorAt(leftPos)
    const rightDoor = await lowerDoorAt(rightPos)
    if ((leftDoor && !rightDoor) || diff > 0) return 'right'
    return 'left'
  }

  serv.mcbotIsDoor = isDoor
}

module.exports.player = function (player, serv) {
  // Raw yaw in degrees (flying-squid keeps only a byte-rounded copy).
  player._client.on('look', ({ yaw }) => { player.mcbotYaw = yaw })
  player._client.on('position_look', ({ yaw }) => { player.mcbotYaw = yaw })

  // Breaking either half removes the other; only the dug half drops the item.
  player.on('dug', async ({ position, block }) => {
    if (!block || !block.name || !block.name.endsWith('_door')) return
    const props = stateProps(serv.registry, block.stateId)
    const other = position.offset(0, props.half === 'lower' ? 1 : -1, 0)
    const ob = await player.world.getBlock(other)
    if (ob.name === block.name) serv.setBlock(player.world, other, 0)
  })
}
